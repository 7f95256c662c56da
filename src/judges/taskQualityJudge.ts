import { z } from 'zod';
import { parseOptions, parseWith } from '../errors/validate.js';
import { askStructured } from '../llm/askStructured.js';
import { type ChatMessage, ChatModelSchema } from '../llm/chatModel.js';
import { majorityVote } from '../metrics/majorityVote.js';
import { clip } from './judgeMaterial.js';
import { judgeMaterialOptions } from './judgeOptions.js';

/** A SWE-style task to check (Verification Horizon §2.2): the instruction, its tests and optional references. */
export const TaskQualityInputSchema = z
  .object({
    /** The task instruction the agent sees. */
    statement: z.string().min(1),
    /** The verifier: the test patch, the test files or `evaluation.sh`, as text. */
    tests: z.string().min(1),
    /** The ground-truth fix patch (optional; the paper finds it raises instruct_ut_align recall). */
    goldPatch: z.string().optional(),
    /** Repository context: a file listing, README excerpt, relevant sources (optional). */
    repository: z.string().optional(),
  })
  .strict();
/** A SWE-style task to check. */
export type TaskQualityInput = z.infer<typeof TaskQualityInputSchema>;

/** A labelled few-shot example (the paper finds few-shot examples raise instruct_ut_align precision). */
export const TaskQualityExampleSchema = z
  .object({
    /** The example task. */
    task: TaskQualityInputSchema,
    /** Its gold labels. */
    label: z.object({ instructClear: z.boolean(), instructUtAlign: z.boolean() }).strict(),
    /** Optional explanations shown with the labels. */
    reasons: z.object({ instructClear: z.string(), instructUtAlign: z.string() }).strict().optional(),
  })
  .strict();
/** A labelled few-shot example. */
export type TaskQualityExample = z.infer<typeof TaskQualityExampleSchema>;

/** One sample's JSON answer (snake_case as in the paper). */
export const TaskQualityAnswerSchema = z.looseObject({
  instruct_clear: z.boolean(),
  instruct_ut_align: z.boolean(),
  reasons: z.looseObject({ instruct_clear: z.string(), instruct_ut_align: z.string() }),
});

/**
 * System prompt of the task-quality judge (Verification Horizon §2.2). The
 * paper's prompt is not public; this one states its two dimensions and the
 * failure cases it lists. Override with `opts.systemPrompt` (keep the format).
 */
export const TASK_QUALITY_SYSTEM_PROMPT = `You check the quality of a SWE-style training task built from a GitHub pull request: an instruction for a coding agent and the tests that grade its solution. Answer two questions.

instruct_clear: does the instruction express the intended task clearly enough that a capable engineer could solve it from the instruction and the repository alone? It is false when the instruction is a few words without actionable context, depends on inaccessible resources (private discussions, internal links), or leaves the expected behaviour undetermined.

instruct_ut_align: do the tests faithfully operationalise the instruction? It is false when the tests check functionality unrelated to the stated task, hard-code implementation-specific artefacts the instruction does not imply (exact internal names, error strings, typos), or would reject reasonable correct solutions or accept wrong ones.

Judge from the material given. Answer with one JSON object and nothing else:
{"instruct_clear": true, "instruct_ut_align": false, "reasons": {"instruct_clear": "...", "instruct_ut_align": "..."}}`;

/**
 * Options of {@link judgeTaskQuality}, with the shared judge options `retries`
 * (per sample, default 2), `complete` (`temperature` defaults to 0.7 when
 * `samples > 1`: identical greedy samples would make the vote moot) and
 * `systemPrompt` (replaces {@link TASK_QUALITY_SYSTEM_PROMPT}).
 */
export const JudgeTaskQualityOptionsSchema = z
  .object({
    /** The judge model. */
    model: ChatModelSchema,
    /** Samples per task for the majority vote (integer >= 1). Default 3. An odd number avoids ties. */
    samples: z.number().int().min(1).default(3),
    /** Labelled examples shown before the task as user/assistant turns. Default none. */
    fewShot: z.array(TaskQualityExampleSchema).default([]),
    /** Show `task.goldPatch` when given. Default true. */
    useGoldPatch: z.boolean().default(true),
    /** Base sampling seed: sample `k` is sent `seed + k`. Default 0. */
    seed: z.number().int().default(0),
    /** Characters kept of each text field (statement, tests, patch, repository). Default 12000. */
    maxFieldChars: z.number().int().min(1).default(12_000),
    ...judgeMaterialOptions().pick({ retries: true, complete: true, systemPrompt: true }).shape,
  })
  .strict();
/** Options of {@link judgeTaskQuality} as the caller writes them. */
export type JudgeTaskQualityOptions = z.input<typeof JudgeTaskQualityOptionsSchema>;

/** One sample's vote. */
export interface TaskQualityVote {
  /** instruct_clear of this sample. */
  instructClear: boolean;
  /** instruct_ut_align of this sample. */
  instructUtAlign: boolean;
  /** The sample's reasons. */
  reasons: { instructClear: string; instructUtAlign: string };
}

/** The result of {@link judgeTaskQuality}. */
export interface TaskQualityJudgement {
  /** Majority instruct_clear. */
  instructClear: boolean;
  /** Majority instruct_ut_align. */
  instructUtAlign: boolean;
  /** `instructClear && instructUtAlign`: the task's pass/fail reward is trustworthy (the paper's overall_good). */
  overallGood: boolean;
  /** Every sample's vote, in sample order. */
  votes: TaskQualityVote[];
  /** Share of samples agreeing with the majority label, per dimension (0.5 on a tie). */
  agreement: { instructClear: number; instructUtAlign: number };
}

function renderTask(t: TaskQualityInput, useGold: boolean, max: number): string {
  const parts = [`# Instruction\n${clip(t.statement, max)}`, `# Tests\n${clip(t.tests, max)}`];
  if (t.repository !== undefined) parts.push(`# Repository\n${clip(t.repository, max)}`);
  if (useGold && t.goldPatch !== undefined) parts.push(`# Ground-truth patch (reference fix)\n${clip(t.goldPatch, max)}`);
  return parts.join('\n\n');
}

/**
 * The agentic task-quality judge of Verification Horizon §2.2, as a chat-model
 * judge: it reads a SWE-style task (instruction, tests, optionally the
 * ground-truth patch and repository context) and decides the two dimensions of
 * semantic reward faithfulness,
 * ```
 * instruct_clear     does the instruction state the intended task well enough?
 * instruct_ut_align  do the tests faithfully operationalise the instruction?
 * overall_good       = instruct_clear AND instruct_ut_align
 * ```
 * by majority vote over `samples` independent samples (sample `k` gets seed
 * `seed + k`). Each dimension is voted separately; a tie (even `samples`) gives
 * `false`, so a filter built on `overallGood` drops the task (conservative: its
 * reward is not shown to be reliable). Optional few-shot examples are shown as
 * prior user/assistant turns; the gold patch is shown when given and
 * `useGoldPatch`. The paper's judge is an agent exploring the Docker
 * environment (MiniSWEAgent); this one sees only the text given, so put the
 * relevant repository context into `task.repository`.
 *
 * @param task - the task to check
 * @param opts - `{ model, samples = 3, fewShot = [], useGoldPatch = true, retries = 2, seed = 0, ... }`
 * @returns majority labels, overall_good, the votes and the agreement
 * @throws FrognanoError (as a rejected promise) `INVALID_TYPE` / `OUT_OF_RANGE` naming
 *   `task.<field>` or `opts.<field>`, `MODEL_ANSWER_INVALID` (a sample without a valid
 *   answer after the retries), `MODEL_UNAVAILABLE`
 * @example
 * const q = await judgeTaskQuality({ statement, tests: testPatch, goldPatch }, { model, samples: 5 });
 * if (!q.overallGood) dropTask();
 */
export async function judgeTaskQuality(task: TaskQualityInput, opts: JudgeTaskQualityOptions): Promise<TaskQualityJudgement> {
  const fn = 'judgeTaskQuality';
  const o = parseOptions(fn, JudgeTaskQualityOptionsSchema, opts);
  const t = parseWith(fn, 'task', TaskQualityInputSchema, task);
  const messages: ChatMessage[] = [{ role: 'system', content: o.systemPrompt ?? TASK_QUALITY_SYSTEM_PROMPT }];
  for (const ex of o.fewShot) {
    messages.push({ role: 'user', content: renderTask(ex.task, o.useGoldPatch, o.maxFieldChars) });
    messages.push({
      role: 'assistant',
      content: JSON.stringify({
        instruct_clear: ex.label.instructClear,
        instruct_ut_align: ex.label.instructUtAlign,
        reasons: { instruct_clear: ex.reasons?.instructClear ?? '', instruct_ut_align: ex.reasons?.instructUtAlign ?? '' },
      }),
    });
  }
  messages.push({ role: 'user', content: renderTask(t, o.useGoldPatch, o.maxFieldChars) });
  const base = o.complete ?? {};
  const temperature = base.temperature ?? (o.samples > 1 ? 0.7 : undefined);
  const votes = await Promise.all(
    Array.from({ length: o.samples }, async (_, k): Promise<TaskQualityVote> => {
      const a = await askStructured(o.model, messages, TaskQualityAnswerSchema, {
        retries: o.retries,
        caller: fn,
        complete: { ...base, ...(temperature !== undefined ? { temperature } : {}), seed: (base.seed ?? o.seed) + k },
      });
      return {
        instructClear: a.instruct_clear,
        instructUtAlign: a.instruct_ut_align,
        reasons: { instructClear: a.reasons.instruct_clear, instructUtAlign: a.reasons.instruct_ut_align },
      };
    }),
  );
  const clear = majorityVote(votes.map((v) => v.instructClear));
  const align = majorityVote(votes.map((v) => v.instructUtAlign));
  const instructClear = clear.winner === true;
  const instructUtAlign = align.winner === true;
  return {
    instructClear,
    instructUtAlign,
    overallGood: instructClear && instructUtAlign,
    votes,
    agreement: { instructClear: clear.agreement, instructUtAlign: align.agreement },
  };
}
