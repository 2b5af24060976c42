/**
 * `corral completion bash|zsh`: a shell completion script written from the
 * commands' own declarations, so that it offers every command, subcommand
 * and flag there is. Completes output formats, file names for file flags,
 * context names for `config use-context` and `--context`, and the names of
 * clusters and compute templates (a command's NAME, `--cluster`,
 * `--template`), which it asks the server for with the namespace, context
 * and server of the line being completed; when the server cannot answer
 * (within 3 seconds), it offers nothing and prints nothing.
 */
import {
  type Flags,
  flagWords,
  GLOBAL_FLAGS,
  onePositional,
  type ParsedArgs,
} from "./args.ts";
import { type Command, isGroup, type TopLevel } from "./command.ts";
import { EXIT_OK, UsageError } from "./errors.ts";
import { OUTPUT_FORMATS } from "./output.ts";

const SHELLS = ["bash", "zsh"] as const;
type Shell = typeof SHELLS[number];

/** Flags that name a file. */
const FILE_FLAGS = [
  "filename",
  "certificate-authority",
  "ca",
  "client-certificate",
  "client-key",
  "issuer-certificate-authority",
  "runtime-env",
  "serve-config",
  "working-dir",
];

/** Flags whose value is an object's name: the group that lists them. */
const NAME_FLAGS: Record<string, string> = {
  cluster: "clusters",
  template: "templates",
};

/** Global flags that say where to ask for names; passed on to the asking. */
const SCOPE_FLAGS = "-n|--namespace|--context|--server|--certificate-authority";

/** `-n|--namespace|...`: the flags of `entries` that take a value, for case. */
function valueFlagPattern(
  entries: TopLevel[],
  pick: (name: string) => boolean,
): string {
  const words = new Set<string>();
  const add = (flags: Flags) => {
    for (
      const word of flagWords(
        flags,
        (name, flag) => flag.type === "string" && pick(name),
      )
    ) words.add(word);
  };
  add(GLOBAL_FLAGS);
  for (const entry of entries) {
    for (const command of isGroup(entry) ? entry.commands : [entry]) {
      add(command.flags);
    }
  }
  return [...words].join("|");
}

/** Each completion key (`clusters list`, `version`) with its command. */
function keyed(entries: TopLevel[]): [string, Command][] {
  return entries.flatMap((entry): [string, Command][] =>
    isGroup(entry)
      ? entry.commands.map((c) => [`${entry.name} ${c.name}`, c])
      : [[entry.name, entry]]
  );
}

/** The case arms shared by both shells, `(pattern) candidates=(...) ;;`. */
function arms(entries: TopLevel[]): { flags: string[]; words: string[] } {
  const flags = keyed(entries).map(([key, command]) =>
    `      ("${key}") candidates=(${
      [...flagWords(command.flags), ...flagWords(GLOBAL_FLAGS)].join(" ")
    }) ;;`
  );
  const words = [
    `      ("") candidates=(${entries.map((e) => e.name).join(" ")}) ;;`,
    ...entries.filter(isGroup).map((group) =>
      `      ("${group.name}") candidates=(${
        group.commands.map((c) => c.name).join(" ")
      }) ;;`
    ),
    ...keyed(entries).filter(([, c]) => c.completeWords).map(([key, c]) =>
      `      ("${key}") candidates=(${c.completeWords!.join(" ")}) ;;`
    ),
    ...keyed(entries).filter(([, c]) => c.completeNames).map(([key, c]) =>
      `      ("${key}") candidates=($(_corral_names ${c.completeNames} "\${scope[@]}")) ;;`
    ),
    `      ("config use-context") candidates=($(_corral_contexts)) ;;`,
  ];
  return { flags, words };
}

const CONTEXTS_FUNCTION = `_corral_contexts() {
  corral config get-contexts 2>/dev/null | awk 'NR > 1 { print ($1 == "*") ? $2 : $1 }'
}

# The names of a group's objects (clusters, templates), from the server;
# nothing, quietly, when it cannot say within 3 seconds.
_corral_names() {
  local group="$1"; shift
  local -a limit=()
  command -v timeout >/dev/null 2>&1 && limit=(timeout 3)
  "\${limit[@]}" corral "$group" list "$@" </dev/null 2>/dev/null | awk 'NR > 1 { print $1 }'
}`;

/** The case arms completing --cluster and --template with names. */
function nameFlagArms(shell: Shell): string {
  return Object.entries(NAME_FLAGS).map(([flag, group]) => {
    const names = `$(_corral_names ${group} "\${scope[@]}")`;
    return shell === "bash"
      ? `    --${flag}) COMPREPLY=($(compgen -W "${names}" -- "$cur")); return ;;`
      : `    (--${flag}) compadd -- ${names}; return ;;`;
  }).join("\n");
}

/** The script for `shell`. */
export function completionScript(shell: Shell, entries: TopLevel[]): string {
  const valueFlags = valueFlagPattern(entries, () => true);
  const fileFlags = valueFlagPattern(
    entries,
    (name) => FILE_FLAGS.includes(name),
  );
  const groups = entries.filter(isGroup).map((g) => g.name).join("|");
  const { flags, words } = arms(entries);
  const globalFlags = flagWords(GLOBAL_FLAGS).join(" ");
  const formats = OUTPUT_FORMATS.join(" ");
  if (shell === "bash") {
    return `# bash completion for corral. Load it with: source <(corral completion bash)
${CONTEXTS_FUNCTION}

_corral() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local -a cmd=() candidates=() scope=()
  local i w key
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in
      ${SCOPE_FLAGS}) scope+=("$w" "\${COMP_WORDS[i+1]}"); ((i++)) ;;
      ${valueFlags}) ((i++)) ;;
      -*) ;;
      *) cmd+=("$w") ;;
    esac
  done
  case "$prev" in
    -o|--output) COMPREPLY=($(compgen -W "${formats}" -- "$cur")); return ;;
    --context) COMPREPLY=($(compgen -W "$(_corral_contexts)" -- "$cur")); return ;;
${nameFlagArms("bash")}
    ${fileFlags}) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    ${valueFlags}) return ;;
  esac
  case "\${cmd[0]}" in
    ${groups}) key="\${cmd[*]:0:2}" ;;
    *) key="\${cmd[0]}" ;;
  esac
  if [[ "$cur" == -* ]]; then
    case "$key" in
${flags.join("\n")}
      (*) candidates=(${globalFlags}) ;;
    esac
  else
    case "$key" in
${words.join("\n")}
    esac
  fi
  COMPREPLY=($(compgen -W "\${candidates[*]}" -- "$cur"))
}
complete -o default -F _corral corral
`;
  }
  return `#compdef corral
# zsh completion for corral. Load it with: source <(corral completion zsh)
# (after compinit), or save it as _corral in a directory of $fpath.
${CONTEXTS_FUNCTION}

_corral() {
  local cur="\${words[CURRENT]}" prev="\${words[CURRENT-1]}"
  local -a cmd candidates scope
  local i w key
  for ((i = 2; i < CURRENT; i++)); do
    w="\${words[i]}"
    case "$w" in
      (${SCOPE_FLAGS}) scope+=("$w" "\${words[i+1]}"); ((i++)) ;;
      (${valueFlags}) ((i++)) ;;
      (-*) ;;
      (*) cmd+=("$w") ;;
    esac
  done
  case "$prev" in
    (-o|--output) compadd -- ${formats}; return ;;
    (--context) compadd -- $(_corral_contexts); return ;;
${nameFlagArms("zsh")}
    (${fileFlags}) _files; return ;;
    (${valueFlags}) return ;;
  esac
  case "\${cmd[1]}" in
    (${groups}) key="\${cmd[1]} \${cmd[2]}"; key="\${key% }" ;;
    (*) key="\${cmd[1]}" ;;
  esac
  if [[ "$cur" == -* ]]; then
    case "$key" in
${flags.join("\n")}
      (*) candidates=(${globalFlags}) ;;
    esac
  else
    case "$key" in
${words.join("\n")}
    esac
  fi
  compadd -- "\${candidates[@]}"
}

if [[ "\${funcstack[1]}" == "_corral" ]]; then
  _corral "$@"
else
  compdef _corral corral
fi
`;
}

/** The completion command, over the command table it is part of. */
export function completionCommand(entries: () => TopLevel[]): Command {
  const usage = "completion bash|zsh";
  return {
    name: "completion",
    summary: "print a shell completion script (bash or zsh)",
    usage,
    flags: {},
    completeWords: [...SHELLS],
    examples: [
      "source <(corral completion bash)     # in ~/.bashrc",
      "source <(corral completion zsh)      # in ~/.zshrc, after compinit",
    ],
    run({ positionals }: ParsedArgs): Promise<number> {
      const shell = onePositional(positionals, "a shell (bash or zsh)", usage);
      if (!SHELLS.includes(shell as Shell)) {
        throw new UsageError(
          `no completion for ${JSON.stringify(shell)}: use bash or zsh`,
        );
      }
      console.log(completionScript(shell as Shell, entries()).trimEnd());
      return Promise.resolve(EXIT_OK);
    },
  };
}
