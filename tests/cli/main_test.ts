/**
 * The command line as a whole: help on every level, usage errors (unknown
 * commands and flags, named; exit 2), `version` against a running Corral,
 * an unreachable server (exit 3, naming the URL), and the completion
 * scripts, checked by the shells themselves when they are installed.
 */
import { RAY_VERSIONS } from "../../domain/ray_versions.ts";
import { refusedUrl } from "../refused_url.ts";
import assert from "node:assert/strict";
import { sandbox, startCorral } from "./cli_process.ts";
import denoJson from "../../deno.json" with { type: "json" };

const GROUPS = {
  clusters: [
    "list",
    "get",
    "describe",
    "create",
    "delete",
    "scale",
    "extend",
    "watch",
    "dashboard",
    "connect",
  ],
  templates: ["list", "get", "create", "delete"],
  config: ["set-context", "use-context", "get-contexts", "current-context"],
};

Deno.test("corral help, usage errors and completion", async (t) => {
  const box = await sandbox();
  try {
    await t.step(
      "-h and --help on every level: exit 0, the usage on standard output",
      async () => {
        const root = await box.run(["--help"]);
        assert.equal(root.code, 0);
        for (
          const word of [
            "clusters",
            "templates",
            "quota",
            "version",
            "config",
            "completion",
          ]
        ) {
          assert.match(root.stdout, new RegExp(`^  ${word}\\s`, "m"));
        }
        for (const [group, commands] of Object.entries(GROUPS)) {
          const help = await box.run([group, "-h"]);
          assert.equal(help.code, 0, help.stderr);
          for (const command of commands) {
            assert.match(help.stdout, new RegExp(`^  ${command}\\s`, "m"));
            const own = await box.run([group, command, "--help"]);
            assert.equal(own.code, 0, own.stderr);
            assert.match(
              own.stdout,
              new RegExp(`^  corral ${group} ${command}`, "m"),
            );
            assert.match(own.stdout, /^Global flags:$/m);
          }
        }
        for (const command of ["quota", "version", "completion"]) {
          const help = await box.run([command, "-h"]);
          assert.equal(help.code, 0, help.stderr);
          assert.match(help.stdout, new RegExp(`^  corral ${command}`, "m"));
        }
      },
    );

    await t.step(
      "no command, or a group without its command: the help on standard error, exit 2",
      async () => {
        const none = await box.run([]);
        assert.equal(none.code, 2);
        assert.match(none.stderr, /^Usage:/m);
        const group = await box.run(["clusters"]);
        assert.equal(group.code, 2);
        assert.match(group.stderr, /^ {2}corral clusters <command>/m);
      },
    );

    await t.step(
      "unknown commands and flags are usage errors that name them, exit 2",
      async () => {
        const cases: [string[], string][] = [
          [["--bogus"], "error: unknown flag --bogus"],
          [["clusterz"], 'error: unknown command "clusterz" for corral'],
          [
            ["clusters", "lsit"],
            'error: unknown command "lsit" for corral clusters',
          ],
          [["clusters", "list", "--bogus"], "error: unknown flag --bogus"],
          [["clusters", "list", "-z"], "error: unknown flag -z"],
          [["clusters", "list", "-o"], "error: flag --output needs a value"],
          [
            ["clusters", "list", "-o", "name"],
            'error: -o "name" is not an output format: use table, wide, json, yaml',
          ],
          [["clusters", "get"], "error: a cluster name is required"],
          [["clusters", "get", "a", "b"], 'error: unexpected argument "b"'],
          [
            ["clusters", "create"],
            "error: a cluster name, or -f FILE, is required",
          ],
          [
            ["completion", "fish"],
            'error: no completion for "fish": use bash or zsh',
          ],
        ];
        for (const [args, message] of cases) {
          const result = await box.run(args);
          assert.equal(
            result.code,
            2,
            `corral ${args.join(" ")}: ${result.stderr}`,
          );
          assert.equal(
            result.stderr.split("\n")[0],
            message,
            `corral ${args.join(" ")}`,
          );
          assert.equal(result.stdout, "");
        }
      },
    );

    await t.step("global flags may come before the command", async () => {
      const result = await box.run([
        "-n",
        "team-a",
        "clusters",
        "list",
        "--server",
        "http://x:1",
        "--help",
      ]);
      assert.equal(result.code, 0, result.stderr);
    });

    for (const shell of ["bash", "zsh"]) {
      await t.step(
        `completion ${shell} offers every command, subcommand and flag`,
        async () => {
          const result = await box.run(["completion", shell]);
          assert.equal(result.code, 0, result.stderr);
          const script = result.stdout;
          for (const [group, commands] of Object.entries(GROUPS)) {
            assert.match(
              script,
              new RegExp(`candidates=\\([^)]*\\b${group}\\b`),
            );
            assert.ok(
              script.includes(
                `("${group}") candidates=(${commands.join(" ")})`,
              ),
              `${group}'s commands`,
            );
          }
          for (
            const flag of [
              "--wait",
              "--timeout",
              "--replicas",
              "--group",
              "--all-namespaces",
              "--certificate-authority",
              "--context",
            ]
          ) {
            assert.ok(script.includes(flag), flag);
          }
          assert.ok(script.includes(`("completion") candidates=(bash zsh)`));
          await assertShellParses(shell, `${box.dir}/corral.${shell}`, script);
        },
      );
    }

    await t.step(
      "bash completion completes commands, subcommands and flags",
      async () => {
        const script = (await box.run(["completion", "bash"])).stdout;
        await Deno.writeTextFile(`${box.dir}/corral.bash`, script);
        const complete = async (line: string) => {
          const words = line.split(" ");
          const probe = `source ${box.dir}/corral.bash
COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${
            words.length - 1
          }
_corral; echo "\${COMPREPLY[*]}"`;
          const output = await shellRun("bash", ["-c", probe]);
          return output?.trim();
        };
        const clusters = await complete("corral cl");
        if (clusters === undefined) return; // no bash here
        assert.equal(clusters, "clusters");
        assert.equal(
          await complete("corral clusters "),
          GROUPS.clusters.join(" "),
        );
        assert.equal(await complete("corral -n team-a clusters s"), "scale");
        assert.equal(
          await complete("corral clusters scale blue --re"),
          "--replicas",
        );
        assert.equal(await complete("corral clusters list -o y"), "yaml");
        assert.equal(await complete("corral completion "), "bash zsh");
      },
    );
  } finally {
    await box.remove();
  }
});

/** Runs a shell; undefined when it is not installed. */
async function shellRun(
  shell: string,
  args: string[],
): Promise<string | undefined> {
  try {
    const output = await new Deno.Command(shell, {
      args,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    return new TextDecoder().decode(output.stdout);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** The shell reads the script without a syntax error (`-n`), if it is installed. */
async function assertShellParses(
  shell: string,
  path: string,
  script: string,
): Promise<void> {
  await Deno.writeTextFile(path, script);
  await shellRun(shell, ["-n", path]);
}

Deno.test("corral version prints the client's version from deno.json and the server's", async (t) => {
  const main = await startCorral();
  const box = await sandbox();
  try {
    await t.step("as text", async () => {
      const result = await box.run(["version", "--server", main.http]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(
        result.stdout,
        `Client Version: ${denoJson.version}\nServer Version: ${denoJson.version} (deno ${Deno.version.deno})\n`,
      );
    });
    await t.step("-o json parses", async () => {
      const result = await box.run(["version", "-o", "json"], {
        env: { CORRAL_SERVER: main.http },
      });
      assert.deepEqual(JSON.parse(result.stdout), {
        clientVersion: { version: denoJson.version },
        serverVersion: {
          version: denoJson.version,
          runtime: `deno ${Deno.version.deno}`,
          rayVersions: RAY_VERSIONS,
        },
      });
    });
  } finally {
    await box.remove();
    await main.stop();
  }
});

Deno.test("a server nobody answers at: exit 3, naming the URL", async () => {
  const box = await sandbox();
  const url = await refusedUrl();
  try {
    const result = await box.run(["clusters", "list"], {
      env: { CORRAL_SERVER: url },
    });
    assert.equal(result.code, 3);
    assert.match(
      result.stderr,
      new RegExp(`^error: cannot reach Corral at ${url}: .*refused`),
    );
    const version = await box.run(["version", "--server", url]);
    assert.equal(version.code, 3);
    assert.equal(
      version.stdout,
      `Client Version: ${denoJson.version}\n`,
      "the client's version all the same",
    );
  } finally {
    await box.remove();
  }
});
