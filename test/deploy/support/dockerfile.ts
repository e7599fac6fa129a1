import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { readRepoFile } from './deploy-files';

export const DOCKERFILE = 'Dockerfile';

export interface Stage {
  name: string;
  /** The FROM image with the Dockerfile's global ARG defaults substituted. */
  image: string;
  instructions: { keyword: string; args: string[]; text: string }[];
}

export interface ParsedDockerfile {
  text: string;
  stages: Stage[];
  /** The final stage: what `docker build` without --target produces. */
  runtime: Stage;
  /** The runtime stage's USER as numbers (throws when it is a name: Kubernetes cannot verify runAsNonRoot then). */
  runtimeUser(): { uid: number; gid: number };
  /** An exec-form instruction's JSON array (HEALTHCHECK after its CMD, ENTRYPOINT, CMD). */
  execForm(stage: Stage, keyword: string): string[];
}

function args(instruction: Instruction): string[] {
  return instruction.getArguments().map((a) => a.getValue());
}

/** The Dockerfile through dockerfile-ast, the parser of the Docker language server. */
export function readDockerfile(): ParsedDockerfile {
  const text = readRepoFile(DOCKERFILE);
  const dockerfile = DockerfileParser.parse(text);
  const globals = Object.fromEntries(
    dockerfile.getInitialARGs().map((a) => [a.getProperty()?.getName() ?? '', a.getProperty()?.getValue() ?? '']),
  );
  const substitute = (value: string) =>
    value.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a: string | undefined, b: string | undefined) => globals[a ?? b ?? ''] ?? '');
  const lines = text.split('\n');
  const stages = dockerfile.getFROMs().map((from, index): Stage => {
    const image = dockerfile.getContainingImage(from.getRange().start)!;
    return {
      name: from.getBuildStage() ?? String(index),
      image: substitute(from.getImage() ?? ''),
      instructions: image.getInstructions().map((i) => {
        const range = i.getRange();
        return { keyword: i.getKeyword(), args: args(i), text: lines.slice(range.start.line, range.end.line + 1).join('\n') };
      }),
    };
  });
  const runtime = stages[stages.length - 1]!;
  return {
    text,
    stages,
    runtime,
    runtimeUser() {
      const users = runtime.instructions.filter((i) => i.keyword === 'USER');
      const value = users[users.length - 1]?.args[0] ?? '';
      const match = /^(\d+)(?::(\d+))?$/.exec(value);
      if (!match) throw new Error(`the runtime stage's USER is "${value}", not uid[:gid] as numbers`);
      return { uid: Number(match[1]), gid: Number(match[2] ?? match[1]) };
    },
    execForm(stage, keyword) {
      const instruction = stage.instructions.find((i) => i.keyword === keyword);
      if (!instruction) throw new Error(`stage ${stage.name} has no ${keyword}`);
      const json = /\[[\s\S]*\]\s*$/.exec(instruction.text.replace(/\\\n/g, ' '));
      if (!json) throw new Error(`${keyword} in stage ${stage.name} is not in exec form: ${instruction.text}`);
      return JSON.parse(json[0]) as string[];
    },
  };
}
