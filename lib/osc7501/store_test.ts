// Store cases from docs/osc7501.md §4 (after pst's store test, the VT fork's and AC's acceptance tests).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Store } from "./store.ts";
import { parseBody, type Report } from "./parse.ts";
import { MAX_RECORDS, MIN_RECORDS } from "./limits.ts";

const te = new TextEncoder();
function r(body: string): Report {
  const p = parseBody(te.encode(body), "st");
  if (p.type !== "report") throw new Error(`not a report: ${body}`);
  return p.report;
}
const ids = (s: Store) => s.list().map((x) => x.id);

describe("replacement (§4.1)", () => {
  test("a report replaces its record completely (no merging)", () => {
    const s = new Store();
    s.apply(r("state=working:app=cargo:progress=40:msg=SGk="), 1);
    s.apply(r("state=working"), 2);
    const rec = s.get(null)!;
    assert.equal(rec.app, null);
    assert.equal(rec.progress, null);
    assert.equal(rec.msg, null);
    assert.equal(rec.updatedAt, 2);
  });
  test("root and children coexist; an idle root does not hide a blocked child", () => {
    const s = new Store();
    s.apply(r("state=idle"), 0);
    s.apply(r("state=blocked:id=deploy/eu-west:kind=permission"), 1);
    s.apply(r("state=working:id=deploy/us-east:progress=40"), 2);
    assert.deepEqual(ids(s), [null, "deploy/eu-west", "deploy/us-east"]);
    assert.equal(s.attention()?.id, "deploy/eu-west");
  });
  test("the parent of a record does not have to exist", () => {
    const s = new Store();
    s.apply(r("state=working:id=a/b/c"), 0);
    assert.deepEqual(ids(s), ["a/b/c"]);
  });
});

describe("clear (§4.1)", () => {
  const seed = () => {
    const s = new Store();
    for (const id of ["a", "a/b", "a/b/c", "ab", "a.b", "a-b", "builder", "build-x"]) {
      s.apply(r(`state=working:id=${id}`), 0);
    }
    s.apply(r("state=idle"), 0);
    return s;
  };
  test("removes the record and its subtree on / boundaries only", () => {
    const s = seed();
    const { removed } = s.apply(r("state=clear:id=a"), 1);
    assert.deepEqual(removed, ["a", "a/b", "a/b/c"]);
    assert.deepEqual(ids(s), [null, "a-b", "a.b", "ab", "build-x", "builder"]);
  });
  test("clearing an id with no record of its own removes its descendants", () => {
    const s = new Store();
    s.apply(r("state=working:id=x/y"), 0);
    assert.deepEqual(s.apply(r("state=clear:id=x"), 1).removed, ["x/y"]);
  });
  test("clearing a missing id changes nothing", () => {
    const s = seed();
    assert.deepEqual(s.apply(r("state=clear:id=zzz"), 1).removed, []);
    assert.equal(s.size, 9);
  });
  test("clear without id removes every record including the root", () => {
    const s = seed();
    assert.equal(s.apply(r("state=clear"), 1).removed.length, 9);
    assert.equal(s.size, 0);
  });
  test("`build` does not clear `builder`", () => {
    const s = seed();
    assert.deepEqual(s.apply(r("state=clear:id=build"), 1).removed, []);
  });
});

describe("app inheritance (§2.4)", () => {
  test("nearest ancestor with an app, through missing levels, up to the root", () => {
    const s = new Store();
    s.apply(r("state=working:app=deployer"), 0);
    s.apply(r("state=working:id=a/b:app=uploader"), 0);
    s.apply(r("state=working:id=a/b/c/d"), 0);
    s.apply(r("state=working:id=z"), 0);
    assert.equal(s.effectiveApp("a/b/c/d"), "uploader");
    assert.equal(s.effectiveApp("a/b"), "uploader");
    assert.equal(s.effectiveApp("z"), "deployer");
    assert.equal(s.effectiveApp("missing/child"), "deployer");
    assert.equal(s.effectiveApp(null), "deployer");
    s.apply(r("state=working"), 1); // root replaced without app
    assert.equal(s.effectiveApp("z"), null);
  });
});

describe("LRU eviction (§3, D18)", () => {
  test("at the cap a new id evicts the least recently updated record; the root counts", () => {
    const s = new Store();
    s.apply(r("state=idle"), 0);
    for (let i = 1; i < MAX_RECORDS; i++) s.apply(r(`state=working:id=t${i}`), i);
    assert.equal(s.size, MAX_RECORDS);
    const { evicted } = s.apply(r("state=working:id=new"), 1000);
    assert.deepEqual(evicted, [null]); // the root was least recently updated
    assert.equal(s.size, MAX_RECORDS);
    assert.equal(s.get(null), undefined);
  });
  test("re-reporting refreshes; reading does not; replacing at the cap evicts nothing", () => {
    const s = new Store(3);
    s.apply(r("state=working:id=a"), 0);
    s.apply(r("state=working:id=b"), 1);
    s.apply(r("state=working:id=c"), 2);
    s.get("a");
    s.attention();
    s.list();
    assert.deepEqual(s.apply(r("state=done:id=c"), 3).evicted, []);
    s.apply(r("state=working:id=a"), 4); // refresh a
    assert.deepEqual(s.apply(r("state=working:id=d"), 5).evicted, ["b"]);
    assert.deepEqual(ids(s), ["a", "c", "d"]);
  });
  test("evicting a parent leaves its descendants", () => {
    const s = new Store(2);
    s.apply(r("state=working:id=p"), 0);
    s.apply(r("state=working:id=p/c"), 1);
    assert.deepEqual(s.apply(r("state=working:id=q"), 2).evicted, ["p"]);
    assert.deepEqual(ids(s), ["p/c", "q"]);
  });
  test("the cap is at least the spec's floor", () => {
    assert.ok(MAX_RECORDS >= MIN_RECORDS);
  });
});

describe("lifetime (§4.2, D11)", () => {
  const seed = () => {
    const s = new Store();
    for (const st of ["working", "blocked", "idle", "done", "error"]) s.apply(r(`state=${st}:id=${st}`), 0);
    return s;
  };
  for (const ev of ["prompt", "exit"] as const) {
    test(`${ev}: working, blocked and idle are removed; done and error survive`, () => {
      const s = seed();
      assert.deepEqual(s.lifecycle(ev), ["blocked", "idle", "working"]);
      assert.deepEqual(ids(s), ["done", "error"]);
    });
  }
  test("RIS removes everything", () => {
    const s = seed();
    s.apply(r("state=done"), 0);
    assert.deepEqual(s.lifecycle("ris"), [null, "blocked", "done", "error", "idle", "working"]);
    assert.equal(s.size, 0);
  });
});

describe("attention (D20)", () => {
  test("blocked > error > done > working > idle", () => {
    const order = ["idle", "working", "done", "error", "blocked"];
    const s = new Store();
    for (let i = 0; i < order.length; i++) {
      s.apply(r(`state=${order[i]}:id=r${i}`), i);
      assert.equal(s.attention()?.state, order[i]);
    }
  });
  test("the root wins ties", () => {
    const s = new Store();
    s.apply(r("state=blocked:id=child"), 5);
    s.apply(r("state=blocked"), 1);
    assert.equal(s.attention()?.id, null);
  });
  test("among children of equal rank the most recently updated wins", () => {
    const s = new Store();
    s.apply(r("state=working:id=a"), 1);
    s.apply(r("state=working:id=b"), 2);
    assert.equal(s.attention()?.id, "b");
  });
  test("empty store has no attention record", () => {
    assert.equal(new Store().attention(), null);
  });
});
