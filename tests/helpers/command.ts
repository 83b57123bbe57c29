/**
 * Runs a command to completion for its standard output, failing with its
 * standard error when it exits unsuccessfully.
 *
 * @module
 */

/** `command args…`'s standard output; throws with its standard error on failure. */
export async function command_stdout(
  command: string,
  args: string[],
): Promise<string> {
  const output = await new Deno.Command(command, {
    args,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(
      `${command} ${args.join(" ")} failed (${output.code}): ${
        new TextDecoder().decode(output.stderr)
      }`,
    );
  }
  return new TextDecoder().decode(output.stdout);
}
