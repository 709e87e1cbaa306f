// The subcommand registry: name → module. main.ts only dispatches.

import type { Command } from "./common.ts";
import { command as scan } from "./scan.ts";
import { command as status } from "./status.ts";
import { command as emit } from "./emit.ts";
import { command as convert } from "./convert.ts";
import { command as cat } from "./cat.ts";
import { command as trim } from "./trim.ts";
import { command as redact } from "./redact.ts";
import { command as info } from "./info.ts";
import { command as demo } from "./demo.ts";
import { command as record } from "./record.ts";
import { command as report } from "./report.ts";
import { command as sim } from "./sim.ts";
import { command as play } from "./play.ts";
import { command as detect } from "./detect.ts";
import { command as explain } from "./explain.ts";
import { command as screen } from "./screen.ts";
import { command as check } from "./check.ts";
import { command as lint } from "./lint.ts";
import { command as hook, hooksCommand as hooks } from "./hook.ts";

export const COMMANDS: Command[] = [
  record,
  play,
  report,
  check,
  scan,
  status,
  emit,
  hook,
  hooks,
  info,
  convert,
  cat,
  trim,
  redact,
  detect,
  explain,
  screen,
  lint,
  sim,
  demo,
];
