// The lines of scrollback every Screen keeps (screen.ts), apart so the recorder can size
// its plain-text tail (session/plain_tail.ts) without loading the emulator.
export const SCROLLBACK = 100;
