// Captures analysed in parallel on worker threads (`report --jobs N`); results come
// back in input order, so output does not depend on which worker finished first.

import { analyzeFile, type AnalyzeOptions } from "./analyze.ts";
import type { FileResult } from "../lib/score/result.ts";
import { errorFromData } from "../lib/errors.ts";
import { workerUrl } from "../lib/runtime.ts";

export async function analyzeAll(
  paths: string[],
  opts: AnalyzeOptions,
  jobs: number,
  onProgress: (done: number, total: number, path: string, t?: number) => void,
): Promise<FileResult[]> {
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
  const workers = Array.from(
    { length: n },
    () => new Worker(workerUrl("replay/analyze_worker.ts"), { type: "module" }),
  );
  try {
    await Promise.all(workers.map((w) =>
      new Promise<void>((resolve, reject) => {
        const take = () => {
          if (next >= paths.length) return resolve();
          const id = next++;
          w.postMessage({ id, path: paths[id], opts });
        };
        w.onmessage = (e: MessageEvent) => {
          const m = e.data;
          if (m.progress !== undefined) return onProgress(done, paths.length, paths[m.id], m.progress);
          if (m.error) return reject(errorFromData(m.error));
          results[m.id] = m.result;
          done++;
          onProgress(done, paths.length, paths[m.id]);
          take();
        };
        w.onerror = (e: ErrorEvent) => reject(new Error(`analysis worker failed: ${e.message}`));
        take();
      })
    ));
  } finally {
    for (const w of workers) w.terminate();
  }
  return results;
}
