/** The shapes {@link parseShell} returns: words, here-documents, redirections and simple commands, with offsets into the parsed string. */

/** One word of a simple command. */
export interface ShellWord {
  /** The word after quote removal and escape processing; expansions (`$VAR`, `$(...)`) are kept as written. */
  value: string;
  /** Offset of the word's first character in the parsed string. */
  start: number;
  /** Offset just past the word's last character (exclusive). */
  end: number;
}

/** A here-document body (the lines between `<<EOF` and `EOF`). */
export interface ShellHeredoc {
  /** The body, terminator line excluded. */
  body: string;
  /** Offset of the body's first character in the parsed string. */
  start: number;
  /** Offset just past the body (exclusive). */
  end: number;
}

/** One redirection of a simple command. */
export interface ShellRedirect {
  /** The operator: `>`, `>>`, `>|`, `&>`, `&>>`, `<`, `<>`, `>&`, `<&`, `<<`, `<<-` or `<<<`. */
  op: string;
  /** An explicit file-descriptor prefix (`2` in `2>err.log`), or `null`. */
  fd: string | null;
  /** The target word (file, descriptor, here-document delimiter or here-string); `null` when the command ends first. */
  target: ShellWord | null;
  /** For `<<` / `<<-`: the captured body; otherwise `null`. */
  heredoc: ShellHeredoc | null;
  /** Offset of the operator (its descriptor prefix included). */
  start: number;
  /** Offset just past the operator. */
  end: number;
}

/** One simple command. */
export interface ShellCommand {
  /** Every word, as written (wrappers and assignments included). */
  words: ShellWord[];
  /** The effective command: {@link ShellCommand.words} without leading assignments and wrappers (`sudo`, `timeout 10`, `xargs -0`, ...). May be empty. */
  argv: ShellWord[];
  /** Its redirections, in order. */
  redirects: ShellRedirect[];
  /** Offset of its first word or redirection in the parsed string. */
  start: number;
  /** Offset just past its last word or redirection (here-document bodies excluded). */
  end: number;
  /** `source.slice(start, end)`: the exact substring, usable as evidence. */
  text: string;
  /**
   * 0 for a command written at the top level; 1 + the container's depth for a
   * command found inside another one (`$(...)`, `bash -c`, `eval`, `find -exec`, ...).
   * When the inner text cannot be mapped back character by character (escapes
   * inside `bash -c "..."`), the nested command's offsets are those of the word holding it.
   */
  depth: number;
}
