/** The built-in wrapper names: GEM's observation and tracking wrappers, plus a step limit. */
import { z } from 'zod';
import { EpisodeTracking } from './episodeTracking.ts';
import { HistoryObservation, type HistoryMode } from './historyObservation.ts';
import { resolveChatTemplate } from './chatTemplate.ts';
import { TimeLimit } from './timeLimit.ts';
import type { WrapperCatalog } from '../registry/wrapperCatalog.ts';

const HistoryOptions = z
  .object({
    max_history_length: z.number().int().nonnegative().optional(),
  })
  .strict();

const ChatOptions = HistoryOptions.extend({
  /** 'chatml', 'qwen', 'llama3', or a Jinja chat template string (a tokenizer's chat_template). */
  chat_template: z.string().min(1),
  /** Extra variables for a Jinja template (bos_token, eos_token, …). */
  chat_template_vars: z.record(z.string(), z.unknown()).optional(),
}).strict();

const HISTORY: Record<HistoryMode, string> = {
  concat: 'Concatenate every observation so far.',
  concat_with_action: 'Concatenate observations and actions so far.',
  concat_chat: 'Render the history as chat messages with a chat template.',
  concat_chat_on_reset: 'Like concat_with_action, with the first observation rendered as a chat prompt.',
};

/** Defines the built-in wrappers in `catalog` (builtinCatalog calls it; nothing defines them on import). */
export function registerBuiltinWrappers(catalog: WrapperCatalog): void {
  for (const mode of ['concat', 'concat_with_action'] as const) {
    catalog.define({
      name: mode,
      kind: 'observation',
      description: HISTORY[mode],
      schema: HistoryOptions,
      build: (env, o) => new HistoryObservation(env, { mode, maxHistoryLength: o.max_history_length }),
    });
  }

  for (const mode of ['concat_chat', 'concat_chat_on_reset'] as const) {
    catalog.define({
      name: mode,
      kind: 'observation',
      description: HISTORY[mode],
      schema: ChatOptions,
      build: (env, o) =>
        new HistoryObservation(env, {
          mode,
          maxHistoryLength: o.max_history_length,
          chatTemplate: resolveChatTemplate(o.chat_template, o.chat_template_vars),
        }),
    });
  }

  catalog.define({
    name: 'episode_tracking',
    kind: 'tracking',
    description: 'Add step_counter and cumulative_rewards to infos, and the previous episode’s totals on reset.',
    build: (env) => new EpisodeTracking(env),
  });

  catalog.define({
    name: 'time_limit',
    kind: 'limit',
    description: 'Truncate episodes after max_episode_steps steps.',
    schema: z.object({ max_episode_steps: z.number().int().positive() }).strict(),
    build: (env, o) => new TimeLimit(env, o.max_episode_steps),
  });
}
