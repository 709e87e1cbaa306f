// The subcommand registry: name → module. main.ts only dispatches.

import type { CommandSpec } from "./common.ts";
import * as scan from "./scan.ts";
import * as status from "./status.ts";
import * as emit from "./emit.ts";

export interface Command {
  spec: CommandSpec;
  run(argv: string[]): Promise<number>;
}

export const COMMANDS: Command[] = [scan, status, emit];
