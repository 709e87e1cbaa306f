// Terminal playback (asciinema's player.rs, plus the side-by-side panel): an absolute
// schedule against the wall clock, re-anchored on pause and speed changes so timing
// does not drift. Keys: space pause, `.` step one event, `]` next marker, `+`/`-`
// speed, `q` quit.

import type { Event } from "../lib/recording/model.ts";

export interface PlayOptions {
  speed: number;
  pauseOnMarkers: boolean;
  /** Called for every event when it is due (or at once while skipping). */
  onEvent(e: Event): void;
  /** Called while waiting, at most every `tickMs`, with the current virtual time. */
  onTick?(vt: number, state: PlayerState): void;
  tickMs?: number;
}

export interface PlayerState {
  paused: boolean;
  speed: number;
  quit: boolean;
  ended: boolean;
}

export type Key = "pause" | "step" | "marker" | "faster" | "slower" | "quit";

export function keyFor(ch: string): Key | null {
  switch (ch) {
    case " ":
      return "pause";
    case ".":
      return "step";
    case "]":
      return "marker";
    case "+":
    case "=":
      return "faster";
    case "-":
    case "_":
      return "slower";
    case "q":
    case "Q":
    case "\x03":
      return "quit";
  }
  return null;
}

export class Player {
  readonly state: PlayerState;
  private anchorWall = 0;
  private anchorVt = 0;
  private wake: (() => void) | null = null;
  private stepping = false;
  private skipToMarker = false;

  constructor(private readonly o: PlayOptions) {
    this.state = { paused: false, speed: o.speed, quit: false, ended: false };
  }

  /** Virtual time now. */
  vt(): number {
    if (this.state.paused) return this.anchorVt;
    return this.anchorVt + ((performance.now() - this.anchorWall) / 1000) * this.state.speed;
  }

  private reanchor(vt = this.vt()): void {
    this.anchorVt = vt;
    this.anchorWall = performance.now();
  }

  key(k: Key): void {
    switch (k) {
      case "pause":
        this.reanchor();
        this.state.paused = !this.state.paused;
        break;
      case "step":
        if (!this.state.paused) {
          this.reanchor();
          this.state.paused = true;
        }
        this.stepping = true;
        break;
      case "marker":
        this.skipToMarker = true;
        break;
      case "faster":
        this.reanchor();
        this.state.speed = Math.min(this.state.speed * 2, 1024);
        break;
      case "slower":
        this.reanchor();
        this.state.speed = Math.max(this.state.speed / 2, 1 / 64);
        break;
      case "quit":
        this.state.quit = true;
        break;
    }
    this.wake?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((r) => {
      const t = setTimeout(() => {
        this.wake = null;
        r();
      }, ms);
      this.wake = () => {
        clearTimeout(t);
        this.wake = null;
        r();
      };
    });
  }

  /** Plays the events (already time-transformed); resolves at the end or on quit. */
  async play(events: AsyncIterable<Event>, startAt = 0): Promise<void> {
    this.reanchor(startAt);
    const tick = this.o.tickMs ?? 50;
    for await (const e of events) {
      if (this.state.quit) break;
      // Wait until the event is due (unless stepping or skipping to a marker).
      while (!this.state.quit) {
        if (this.skipToMarker) break;
        if (this.stepping) {
          this.stepping = false;
          this.anchorVt = Math.max(this.anchorVt, e.t);
          break;
        }
        const now = this.vt();
        if (!this.state.paused && now >= e.t) break;
        this.o.onTick?.(now, this.state);
        const wait = this.state.paused ? tick : Math.min(tick, ((e.t - now) / this.state.speed) * 1000);
        await this.sleep(Math.max(1, wait));
      }
      if (this.state.quit) break;
      if (this.skipToMarker && this.state.paused) this.anchorVt = Math.max(this.anchorVt, e.t);
      this.o.onEvent(e);
      if (e.kind === "marker") {
        if (this.skipToMarker) {
          this.skipToMarker = false;
          this.reanchor(e.t);
        }
        if (this.o.pauseOnMarkers && !this.state.paused) {
          this.reanchor(e.t);
          this.state.paused = true;
        }
      }
    }
    this.state.ended = true;
    this.o.onTick?.(this.vt(), this.state);
  }
}
