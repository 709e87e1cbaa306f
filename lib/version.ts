// Kept in step with package.json by version_test.ts.
export const VERSION = "0.1.0";
export const TOOL = "pstlab";
