// Captures analysed in parallel on worker threads (`report --jobs N`); results come
// back in input order, so output does not depend on which worker finished first.

import { analyzeFile, type AnalyzeOptions, type FileResult } from "./analyze.ts";
import { UsageError } from "../lib/cli/common.ts";
import { FixtureError } from "../lib/recording/model.ts";
import { InputError } from "../lib/recording/source.ts";
import { workerUrl } from "../lib/cli/self.ts";

function rebuild(e: { message: string; name?: string; file?: string; line?: number }): Error {
  if (e.name === "FixtureError" && e.file) return new FixtureError(e.file, e.line ?? null, e.message);
  if (e.name === "InputError") return new InputError(e.message);
  if (e.name === "UsageError" || e.name === "ManifestError" || e.name === "DetectorError") return new UsageError(e.message);
  return new Error(e.message);
}

export async function analyzeAll(paths: string[], opts: AnalyzeOptions, jobs: number, onProgress: (done: number, total: number, path: string, t?: number) => void): Promise<FileResult[]> {
  if (jobs <= 1 || paths.length <= 1) {
    const out: FileResult[] = [];
    for (let i = 0; i < paths.length; i++) {
      onProgress(i, paths.length, paths[i]);
      out.push(await analyzeFile(paths[i], opts, (t) => onProgress(i, paths.length, paths[i], t)));
    }
    onProgress(paths.length, paths.length, "");
    return out;
  }
  const results: FileResult[] = new Array(paths.length);
  let next = 0, done = 0;
  const n = Math.min(jobs, paths.length);
  const workers = Array.from({ length: n }, () => new Worker(workerUrl("replay/analyze_worker.ts"), { type: "module" }));
  try {
    await Promise.all(workers.map((w) => new Promise<void>((resolve, reject) => {
      const take = () => {
        if (next >= paths.length) return resolve();
        const id = next++;
        w.postMessage({ id, path: paths[id], opts });
      };
      w.onmessage = (e: MessageEvent) => {
        const m = e.data;
        if (m.progress !== undefined) return onProgress(done, paths.length, paths[m.id], m.progress);
        if (m.error) return reject(rebuild(m.error));
        results[m.id] = m.result;
        done++;
        onProgress(done, paths.length, paths[m.id]);
        take();
      };
      w.onerror = (e: ErrorEvent) => reject(new Error(`analysis worker failed: ${e.message}`));
      take();
    })));
  } finally {
    for (const w of workers) w.terminate();
  }
  return results;
}
