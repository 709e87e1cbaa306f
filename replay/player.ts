// Terminal playback (asciinema's player.rs, plus the side-by-side panel and asciinema's
// web player's seeking): an absolute schedule against the wall clock, re-anchored on
// pause, speed changes and seeks so timing does not drift. The events are held in
// memory so playback can go back: a backward seek resets the consumer (`onReset`) and
// applies the events up to the target at once, which rebuilds the screen exactly.
// Keys: space pause, `.` step one event, `,` step back one, ←/→ 5 s (shift: 30 s),
// `g` then a time and Enter to jump, `]` next marker, `+`/`-` speed, `q` quit.

import type { Event } from "../lib/recording/model.ts";
import { later } from "../lib/timers.ts";

export interface PlayOptions {
  speed: number;
  pauseOnMarkers: boolean;
  /** Called for every event when it is due (or at once while skipping or seeking). */
  onEvent(e: Event): void;
  /** Before a backward seek re-applies the events from the first: start from nothing again. */
  onReset?(): void;
  /** Called while waiting, at most every `tickMs`, with the current virtual time. */
  onTick?(vt: number, state: PlayerState): void;
  tickMs?: number;
  /**
   * At the end, stay (the clock stopped, paused) until quit, so a person can seek back
   * or label the last moment; otherwise play() resolves at the end.
   */
  holdAtEnd?: boolean;
  /**
   * Paused on a marker (`pauseOnMarkers`): called with it, and with null when playback
   * resumes, so the person sees why it stopped and where (the caller shows a status).
   */
  onMarkerPause?(marker: (Event & { kind: "marker" }) | null): void;
}

export interface PlayerState {
  paused: boolean;
  speed: number;
  quit: boolean;
  /** At the end of the events (the clock stopped there). */
  ended: boolean;
}

export type Key =
  | "pause"
  | "step"
  | "back"
  | "marker"
  | "faster"
  | "slower"
  | "quit"
  | "left"
  | "right"
  | "left30"
  | "right30";

/** Seconds a ←/→ moves (asciinema's player: 5 s, 30 s with shift). */
export const SEEK_SMALL = 5;
export const SEEK_LARGE = 30;

export function keyFor(ch: string): Key | null {
  switch (ch) {
    case " ":
      return "pause";
    case ".":
      return "step";
    case ",":
      return "back";
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
    case "\x1b[D":
    case "\x1bOD":
      return "left";
    case "\x1b[C":
    case "\x1bOC":
      return "right";
    case "\x1b[1;2D":
      return "left30";
    case "\x1b[1;2C":
      return "right30";
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
  private seekTo: number | null = null;
  private stepBack = false;
  /** Paused by a marker (pauseOnMarkers) and not resumed since: its status is showing. */
  private pausedOn = false;
  /** Index of the next event to apply. */
  private next = 0;
  /** The time of the last event (the end of playback). */
  readonly end: number;

  constructor(private readonly o: PlayOptions, private readonly events: Event[]) {
    this.state = { paused: false, speed: o.speed, quit: false, ended: false };
    this.end = events.length ? events[events.length - 1].t : 0;
  }

  /** Virtual time now: never past the end (the clock stops there). */
  vt(): number {
    if (this.state.paused || this.state.ended) return Math.min(this.anchorVt, this.end);
    return Math.min(this.end, this.anchorVt + ((performance.now() - this.anchorWall) / 1000) * this.state.speed);
  }

  private reanchor(vt = this.vt()): void {
    this.anchorVt = vt;
    this.anchorWall = performance.now();
  }

  /** Jumps to virtual time t (clamped to the capture), playing or paused as before. */
  seek(t: number): void {
    this.seekTo = Math.max(0, Math.min(t, this.end));
    this.wake?.();
  }

  key(k: Key): void {
    switch (k) {
      case "pause":
        this.reanchor();
        // At the end, "play" starts again from the beginning, as a player does.
        if (this.state.ended && this.state.paused) {
          this.state.paused = false;
          this.seekTo = 0;
          break;
        }
        this.state.paused = !this.state.paused;
        if (!this.state.paused && this.pausedOn) {
          this.pausedOn = false;
          this.o.onMarkerPause?.(null);
        }
        break;
      case "step":
        if (!this.state.paused) {
          this.reanchor();
          this.state.paused = true;
        }
        this.stepping = true;
        break;
      case "back":
        if (!this.state.paused) {
          this.reanchor();
          this.state.paused = true;
        }
        this.stepBack = true;
        break;
      case "left":
      case "right":
      case "left30":
      case "right30": {
        const d = k.endsWith("30") ? SEEK_LARGE : SEEK_SMALL;
        this.seekTo = Math.max(0, Math.min(this.end, (this.seekTo ?? this.vt()) + (k.startsWith("left") ? -d : d)));
        break;
      }
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
      const t = later(() => {
        this.wake = null;
        r();
      }, ms);
      this.wake = () => {
        t.clear();
        this.wake = null;
        r();
      };
    });
  }

  /** Applies events up to and including time t at once (no pauses on markers). */
  private applyUpTo(t: number): void {
    const evs = this.events;
    // Backward: nothing can be undone, so start again from nothing (fast: no drawing in between).
    if (this.next > 0 && evs[this.next - 1].t > t) {
      this.o.onReset?.();
      this.next = 0;
    }
    while (this.next < evs.length && evs[this.next].t <= t) this.o.onEvent(evs[this.next++]);
  }

  private doSeek(): void {
    const t = this.seekTo!;
    this.seekTo = null;
    this.applyUpTo(t);
    this.state.ended = false;
    this.reanchor(t);
  }

  private doStepBack(): void {
    this.stepBack = false;
    // The screen as it was after the event before the last one shown.
    const target = this.next - 2;
    this.o.onReset?.();
    const to = Math.max(0, target + 1);
    this.next = 0;
    while (this.next < to) this.o.onEvent(this.events[this.next++]);
    this.state.ended = false;
    this.reanchor(target >= 0 ? this.events[target].t : 0);
  }

  /** Plays the events (already time-transformed); resolves at the end (unless holdAtEnd) or on quit. */
  async play(startAt = 0): Promise<void> {
    this.reanchor(startAt);
    const tick = this.o.tickMs ?? 50;
    const evs = this.events;
    while (!this.state.quit) {
      if (this.seekTo !== null) {
        this.doSeek();
        continue;
      }
      if (this.stepBack) {
        this.doStepBack();
        continue;
      }
      if (this.next >= evs.length) {
        if (!this.state.ended) {
          // The clock stops at the end: the last event's time, paused there.
          this.reanchor(this.end);
          this.state.ended = true;
          this.state.paused = true;
          this.stepping = false;
          this.skipToMarker = false;
        }
        this.o.onTick?.(this.vt(), this.state);
        if (!this.o.holdAtEnd) break;
        await this.sleep(tick);
        continue;
      }
      const e = evs[this.next];
      // Wait until the event is due (unless stepping or skipping to a marker).
      let due = false;
      if (this.skipToMarker) due = true;
      else if (this.stepping) {
        this.stepping = false;
        this.anchorVt = Math.max(this.anchorVt, e.t);
        due = true;
      } else if (!this.state.paused && this.vt() >= e.t) due = true;
      if (!due) {
        const now = this.vt();
        this.o.onTick?.(now, this.state);
        const wait = this.state.paused ? tick : Math.min(tick, ((e.t - now) / this.state.speed) * 1000);
        await this.sleep(Math.max(1, wait));
        continue;
      }
      if (this.skipToMarker && this.state.paused) this.anchorVt = Math.max(this.anchorVt, e.t);
      this.next++;
      this.o.onEvent(e);
      if (e.kind === "marker") {
        if (this.skipToMarker) {
          this.skipToMarker = false;
          this.reanchor(e.t);
        }
        if (this.o.pauseOnMarkers && !this.state.paused) {
          this.reanchor(e.t);
          this.state.paused = true;
          this.pausedOn = true;
          this.o.onMarkerPause?.(e);
        }
      }
    }
    if (!this.state.ended && this.next >= evs.length) this.state.ended = true;
    this.o.onTick?.(this.vt(), this.state);
  }
}
