// Runs analyzeFile for `pstlab report --jobs N`, one capture per message. Errors go
// back as data (lib/errors.ts ErrorData): a user error keeps its one line, a bug its stack.
import { analyzeFile, type AnalyzeOptions } from "./analyze.ts";
import { errorToData } from "../lib/errors.ts";

type In = { id: number; path: string; opts: AnalyzeOptions };
const post = (m: unknown) => (self as unknown as { postMessage(m: unknown): void }).postMessage(m);

(self as unknown as { onmessage: (e: { data: In }) => void }).onmessage = async (e) => {
  const { id, path, opts } = e.data;
  try {
    const result = await analyzeFile(path, opts, (t) => post({ id, progress: t }));
    post({ id, result });
  } catch (err) {
    post({ id, error: errorToData(err) });
  }
};
