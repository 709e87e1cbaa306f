// The terminal's records (docs/osc7501.md §4): one per id plus the root, each report replacing
// its record completely, subtree clear on `/` boundaries, app inheritance, an LRU cap
// (D18: plain LRU over "last updated", cap 256, the root counts) and lifetime events.

import { MAX_RECORDS } from "./limits.ts";
import type { RecordState, Report, ReportFields } from "./parse.ts";

export type Source = "osc7501" | "osc9;4";

export interface StoredRecord extends ReportFields<RecordState> {
  source: Source;
  /** Time of the report that last replaced this record (seconds). */
  updatedAt: number;
}

export type Lifecycle = "prompt" | "exit" | "ris";

/** D20: the one "attention" verdict per pty. */
export const ATTENTION_RANK: Record<RecordState, number> = { blocked: 5, error: 4, done: 3, working: 2, idle: 1 };

const ROOT = ""; // ids are never empty, so "" can key the root

export interface ApplyResult {
  /** For clear: the ids removed (null = root). */
  removed: (string | null)[];
  /** For a new id at the cap: the least recently updated record that made room. */
  evicted: (string | null)[];
}

export class Store {
  // Map order is the LRU order: re-inserting on every update keeps the least
  // recently updated record first. Reading never reorders (§4.1).
  private records = new Map<string, StoredRecord>();

  constructor(readonly cap = MAX_RECORDS) {}

  get size(): number {
    return this.records.size;
  }

  get(id: string | null): StoredRecord | undefined {
    return this.records.get(id ?? ROOT);
  }

  apply(r: Report, t: number, source: Source = "osc7501"): ApplyResult {
    if (r.state === "clear") return { removed: this.clear(r.id), evicted: [] };
    const key = r.id ?? ROOT;
    const evicted: (string | null)[] = [];
    if (this.records.has(key)) {
      this.records.delete(key); // replacing an existing id at the cap evicts nothing
    } else {
      while (this.records.size >= this.cap) {
        const oldest = this.records.keys().next().value as string;
        this.records.delete(oldest); // evicting a parent leaves its descendants
        evicted.push(oldest === ROOT ? null : oldest);
      }
    }
    this.records.set(key, {
      id: r.id,
      state: r.state,
      kind: r.kind,
      progress: r.progress,
      app: r.app,
      title: r.title,
      msg: r.msg,
      source,
      updatedAt: t,
    });
    return { removed: [], evicted };
  }

  /** `clear`: the addressed record and every record beneath it; no id clears all. */
  private clear(id: string | null): (string | null)[] {
    const removed: (string | null)[] = [];
    if (id === null) {
      for (const k of this.records.keys()) removed.push(k === ROOT ? null : k);
      this.records.clear();
      return sortIds(removed);
    }
    const prefix = id + "/";
    for (const k of [...this.records.keys()]) {
      if (k === id || k.startsWith(prefix)) {
        this.records.delete(k);
        removed.push(k);
      }
    }
    return sortIds(removed);
  }

  /** Only the root record (OSC 9;4 `0` clears the root, not the tree). */
  removeRoot(): (string | null)[] {
    return this.records.delete(ROOT) ? [null] : [];
  }

  /**
   * Lifetime events (§4.2). D11: a new prompt or the attached process exiting removes
   * working, blocked and idle records; done and error survive. RIS removes everything.
   * DECSTR and alternate-screen switches are not lifetime events at all.
   */
  lifecycle(ev: Lifecycle): (string | null)[] {
    const removed: (string | null)[] = [];
    // Deleting while iterating a Map is well-defined; forEach allocates no entry pairs
    // (a prompt mark per command makes this a hot path).
    this.records.forEach((rec, k) => {
      if (ev === "ris" || rec.state === "working" || rec.state === "blocked" || rec.state === "idle") {
        this.records.delete(k);
        removed.push(k === ROOT ? null : k);
      }
    });
    return removed.length > 1 ? sortIds(removed) : removed;
  }

  /** §2.4: the nearest ancestor's app, walking through missing levels up to the root. */
  effectiveApp(id: string | null): string | null {
    let cur: string | null = id;
    while (true) {
      const rec = this.records.get(cur ?? ROOT);
      if (rec?.app) return rec.app;
      if (cur === null) return null;
      const slash = cur.lastIndexOf("/");
      cur = slash < 0 ? null : cur.slice(0, slash);
    }
  }

  /** Root first, then ids in lexicographic order. */
  list(): StoredRecord[] {
    const root = this.records.get(ROOT);
    const rest = [...this.records.values()].filter((r) => r.id !== null).sort((a, b) => cmp(a.id!, b.id!));
    return root ? [root, ...rest] : rest;
  }

  /**
   * D20: blocked > error > done > working > idle; the root wins ties. Among other
   * records of equal rank the most recently updated wins (our choice: it is the one
   * the user is most likely to be looking for), then the lexicographically first id.
   */
  attention(): StoredRecord | null {
    let best: StoredRecord | null = null;
    for (const r of this.records.values()) {
      if (best === null) {
        best = r;
        continue;
      }
      const d = ATTENTION_RANK[r.state] - ATTENTION_RANK[best.state];
      if (d > 0) best = r;
      else if (d === 0 && best.id !== null) {
        if (
          r.id === null || r.updatedAt > best.updatedAt || (r.updatedAt === best.updatedAt && cmp(r.id, best.id) < 0)
        ) best = r;
      }
    }
    return best;
  }

  /** A read-only copy, for observers sampling the store at a time. */
  snapshot(): StoredRecord[] {
    return this.list().map((r) => ({ ...r }));
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortIds(ids: (string | null)[]): (string | null)[] {
  return ids.sort((a, b) => (a === null ? -1 : b === null ? 1 : cmp(a, b)));
}
