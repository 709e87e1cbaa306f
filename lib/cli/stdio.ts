// stdout and stderr for the CLI, in a module of their own: main.ts prints its usage and
// version with them before any command module is loaded (commands.ts). They are the
// terminal writer's (lib/stdio.ts): every byte printed goes through its filter.

export { err, out } from "../stdio.ts";
