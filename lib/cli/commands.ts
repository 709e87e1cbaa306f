// The subcommand registry: name → module. main.ts only dispatches.

import type { CommandDef, Options } from "./options.ts";
import * as scan from "./scan.ts";
import * as status from "./status.ts";
import * as emit from "./emit.ts";
import * as convert from "./convert.ts";
import * as cat from "./cat.ts";
import * as trim from "./trim.ts";
import * as redact from "./redact.ts";
import * as info from "./info.ts";
import * as demo from "./demo.ts";
import * as record from "./record.ts";
import * as report from "./report.ts";
import * as sim from "./sim.ts";
import * as play from "./play.ts";
import * as detect from "./detect.ts";
import * as explain from "./explain.ts";
import * as screen from "./screen.ts";

export interface Command {
  spec: CommandDef<Options>;
  run(argv: string[]): Promise<number>;
}

export const COMMANDS: Command[] = [record, play, report, scan, status, emit, info, convert, cat, trim, redact, detect, explain, screen, sim, demo];
