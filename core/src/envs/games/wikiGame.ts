/**
 * WikiGame: get from a start page to a target page by following links, within a turn budget. Pages
 * come from a pluggable backend (wiki/page.ts): the link graph shipped in core/data/wiki (default,
 * offline and seeded), a Kiwix server or a MediaWiki API. GEM's rewards: reaching the target 1.0, every
 * other move −0.05, an unknown title or a format error −0.2 (a format error does NOT end the game here),
 * running out of turns 0, a dead end 0 (noregrets) or a bounce back for −0.1 and an extra turn.
 *
 * GEM ends a turn-limit step that was a format error, a backtrack or a bounce with `truncated` only; we
 * set both flags there too, like every other game, and keep GEM's reward for that step.
 *
 * Pages may come over the network, so this env is async only (no sync twins): it extends SeededEnv
 * (seeded streams, spawn, close) rather than the synchronous BaseEnv; its episode state is plain data.
 */
import { z } from 'zod';
import { GemError } from '../../core/errors.ts';
import type { Info, ResetOptions, ResetResult, StepResult } from '../../core/env.ts';
import { SeededEnv } from '../../core/seededEnv.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerVariants } from '../../registry/variants.ts';
import { lastBoxed } from './common.ts';
import { KiwixBackend } from './wiki/kiwix.ts';
import { localGraphBackend } from './wiki/localGraph.ts';
import { MediaWikiBackend } from './wiki/mediaWiki.ts';
import { normaliseTitle, sameTitle, type WikiBackend, type WikiPage } from './wiki/page.ts';
import { PREV_PAGE, VARIANTS, type VariantRules, type WikiVariant } from './wiki/variants.ts';

export const WikiGameReward = {
  success: 1.0,
  internalStep: -0.05,
  fail: 0.0,
  invalidAction: -0.2,
  formatError: -0.2,
} as const;

const TrawlerKwargs = z
  .object({
    /** local: a link-graph JSON file instead of the shipped one. */
    graph_path: z.string().min(1).optional(),
    /** kiwix / mw: the server (kiwix-serve root, or the api.php URL). */
    url: z.string().url().optional(),
    /** kiwix: the ZIM name without .zim. */
    zimfile: z.string().min(1).optional(),
    query_delay_ms: z.number().int().nonnegative().optional(),
    max_query_attempts: z.number().int().positive().optional(),
    query_use_cache: z.boolean().optional(),
    timeout_ms: z.number().int().positive().optional(),
    /** kiwix / mw: draw start and target from these titles with the seeded PRNG. */
    random_titles: z.array(z.string().min(1)).min(2).optional(),
  })
  .strict();

const HTTP_ONLY = ['url', 'zimfile', 'query_delay_ms', 'max_query_attempts', 'query_use_cache', 'timeout_ms', 'random_titles'] as const;

export const WikiGameOptions = z
  .object({
    max_turns: z.number().int().positive().default(10),
    /** GEM's default is the live MediaWiki API; ours is the offline graph that ships with gem-ts. */
    backend: z.enum(['local', 'kiwix', 'mw']).default('local'),
    trawler_kwargs: TrawlerKwargs.nullable().default(null),
    page_summary_length: z.tuple([z.number().int().nonnegative(), z.enum(['characters', 'words', 'sentences'])]).default([100, 'characters']),
    variant: z.enum(['noregrets', 'oneback', 'freenav', 'eidetic']).default('noregrets'),
  })
  .strict()
  .superRefine((o, ctx) => {
    const kw = o.trawler_kwargs ?? {};
    const wrong =
      o.backend === 'local'
        ? HTTP_ONLY.filter((k) => kw[k] !== undefined)
        : [...(kw.graph_path !== undefined ? ['graph_path'] : []), ...(o.backend === 'mw' && kw.zimfile !== undefined ? ['zimfile'] : [])];
    for (const k of wrong) {
      ctx.addIssue({ code: 'custom', path: ['trawler_kwargs', k], message: `not used by the '${o.backend}' backend` });
    }
  });
export type WikiGameOptions = z.infer<typeof WikiGameOptions>;

/** The backend an options object asks for. */
export function createWikiBackend(o: WikiGameOptions): WikiBackend {
  const kw = o.trawler_kwargs ?? {};
  if (o.backend === 'local') return localGraphBackend(kw.graph_path);
  return o.backend === 'kiwix' ? new KiwixBackend(kw) : new MediaWikiBackend(kw);
}

interface State {
  maxTurns: number;
  target: WikiPage;
  current: WikiPage;
  /** Pages stood on, start first; stepping back pops it. */
  history: WikiPage[];
  /** The last move was a step back (or a bounce); oneback forbids another. */
  backtracked: boolean;
  turn: number;
  /** eidetic: every link seen on a page visited so far. */
  remembered: string[];
}

/** The beginning of a page's text, by characters, words or sentences, with '...' when cut. */
export function summarise(text: string, [n, unit]: WikiGameOptions['page_summary_length']): string {
  let out: string;
  if (unit === 'characters') out = text.slice(0, n);
  else if (unit === 'words') out = text.split(/\s+/).filter(Boolean).slice(0, n).join(' ');
  else out = text.split(/(?<=[.!?])\s+(?=[A-Z])/).slice(0, n).join(' ');
  return out.length < text.trim().length ? `${out.trimEnd()}...` : out;
}

export class WikiGame extends SeededEnv<State> {
  private readonly rules: VariantRules;

  constructor(
    readonly options: WikiGameOptions,
    seed?: number,
    readonly backend: WikiBackend = createWikiBackend(options),
  ) {
    super(seed);
    this.rules = VARIANTS[options.variant as WikiVariant];
  }

  protected clone(): WikiGame {
    return new WikiGame(this.options, undefined, this.backend);
  }

  /** Titles the player may name now (the current page's links, or everything remembered). */
  private validTitles(): string[] {
    const s = this.state;
    return this.rules.remembersLinks ? s.remembered : s.current.links;
  }

  private summary(page: WikiPage): string {
    return summarise(page.text, this.options.page_summary_length);
  }

  private suffix(): string {
    const s = this.state;
    const links = this.validTitles().map((t) => `- \\boxed{${t}}`);
    const back = this.rules.backtrack !== 'never' ? `\nYou may also answer \\boxed{${PREV_PAGE}} to go back.` : '';
    return (
      `You are on the page '${s.current.title}'. Your target is '${s.target.title}'.\n` +
      `Summary of this page: ${this.summary(s.current)}\n` +
      `Pages you can go to from here:\n${links.join('\n')}${back}\n` +
      `Enter the title of the page you want to visit next.`
    );
  }

  private info(): Info {
    return { suffix: this.suffix() };
  }

  async reset(opts: ResetOptions = {}): Promise<ResetResult> {
    this.reseed(opts.seed);
    this.backend.clearCache?.();
    const start = await this.backend.randomPage(this.rng);
    const target = await this.backend.randomPage(this.rng, start.title);
    const maxTurns = this.options.max_turns;
    this.state = { maxTurns, target, current: start, history: [start], backtracked: false, turn: 0, remembered: [...start.links] };
    const observation =
      `You are playing the Wikipedia Game: starting from one encyclopedia page, reach a target page by ` +
      `following links, within ${maxTurns} turns. The pages you can go to from a page are the ones it ` +
      `links to. Each turn, write the EXACT title of the page you want to visit inside \\boxed{}, for ` +
      `example \\boxed{${start.links[0]}}.\n${this.rules.rules}\n` +
      `You start on '${start.title}'. Your target is '${target.title}'. What the target page says: ` +
      `${this.summary(target)}\n` +
      `General knowledge is your best guide: before you answer, name the links that seem to lead towards ` +
      `the target, say which is best and why, then give its title in \\boxed{}. Every turn counts.`;
    return { observation, info: this.info() };
  }

  async step(action: string): Promise<StepResult> {
    const s = this.state;
    s.turn += 1;
    const guess = lastBoxed(action)?.trim();
    if (!guess) {
      const r = this.afterTurn(`At turn ${s.turn}, you did not give a page title inside \\boxed{}.`, WikiGameReward.formatError, 'keep');
      return { ...r, info: { ...r.info, format_error: true } };
    }
    if (guess === PREV_PAGE) return this.stepBack();
    const title = this.validTitles().find((t) => sameTitle(t, guess));
    if (title === undefined) {
      const lower = normaliseTitle(guess).toLowerCase();
      const hint = this.validTitles().find((t) => normaliseTitle(t).toLowerCase().includes(lower));
      const observation =
        `At turn ${s.turn}, you asked for '${guess}', which is not a page you can reach from ` +
        `'${s.current.title}'. ${hint ? `Did you mean '${hint}'? ` : ''}Copy one of the listed titles exactly.`;
      return this.afterTurn(observation, WikiGameReward.invalidAction, 'fail');
    }
    const next = await this.backend.getPage(title);
    if (!next) {
      // Not the player's fault: GEM raises here too rather than charging the model for a backend gap.
      throw new GemError('TOOL_ERROR', `WikiGame ${this.backend.name} backend could not load the page '${title}'`, { title });
    }
    if (sameTitle(next.title, s.target.title)) {
      this.moveTo(next);
      return {
        observation: `Congratulations! You reached the target page '${s.target.title}' in ${s.turn} turns.`,
        reward: WikiGameReward.success,
        terminated: true,
        truncated: false,
        info: this.info(),
      };
    }
    const deadEnd = next.links.length === 0 && !(this.rules.remembersLinks && s.remembered.length > 0);
    if (deadEnd && this.rules.deadEnd === 'lose') {
      s.current = next;
      return {
        observation: `At turn ${s.turn}, you went to '${next.title}', a page with no links: a dead end, and the game is over.`,
        reward: WikiGameReward.fail,
        terminated: true,
        truncated: false,
        info: this.info(),
      };
    }
    if (deadEnd) {
      // Bounce: stay where you are, pay a second turn, and you may not step back right away.
      s.backtracked = true;
      s.turn += 1;
      const observation =
        `At turn ${s.turn - 1}, you went to '${next.title}', a page with no links, and were sent back to ` +
        `'${s.current.title}'; that cost an extra turn, so this is now turn ${s.turn}. Summary of this page: ` +
        `${this.summary(s.current)}`;
      return this.afterTurn(observation, 2 * WikiGameReward.internalStep, 'keep');
    }
    this.moveTo(next);
    return this.afterTurn(
      `At turn ${s.turn}, you went to '${next.title}'. Summary of this page: ${this.summary(next)}`,
      WikiGameReward.internalStep,
      'fail',
    );
  }

  private moveTo(page: WikiPage): void {
    const s = this.state;
    s.current = page;
    s.history.push(page);
    s.backtracked = false;
    if (this.rules.remembersLinks) for (const l of page.links) if (!s.remembered.includes(l)) s.remembered.push(l);
  }

  private stepBack(): StepResult {
    const s = this.state;
    let observation: string;
    let reward: number = WikiGameReward.invalidAction;
    if (this.rules.backtrack === 'never') {
      observation = `At turn ${s.turn}, you tried to go back to the previous page, which this version of the game does not allow.`;
    } else if (s.history.length < 2) {
      observation = `At turn ${s.turn}, you tried to go back, but there is no previous page to return to.`;
    } else if (this.rules.backtrack === 'once' && s.backtracked) {
      observation = `At turn ${s.turn}, you tried to go back again, but you may not go back twice in a row.`;
    } else {
      s.history.pop();
      s.current = s.history[s.history.length - 1];
      s.backtracked = true;
      reward = WikiGameReward.internalStep;
      observation = `At turn ${s.turn}, you went back to '${s.current.title}'. Summary of this page: ${this.summary(s.current)}`;
    }
    return this.afterTurn(observation, reward, 'keep');
  }

  /**
   * Finish a turn that did not win or lose outright: at the turn limit the episode ends with both
   * flags; the reward is then 0 for a move or an unknown title ('fail'), as in GEM's main path, and the
   * step's own reward for format errors, step-backs and bounces ('keep'), as GEM's side paths give.
   */
  private afterTurn(observation: string, reward: number, atLimit: 'fail' | 'keep'): StepResult {
    const s = this.state;
    if (s.turn >= s.maxTurns) {
      return {
        observation: `At turn ${s.turn}, you ran out of turns before reaching the target page '${s.target.title}'.`,
        reward: atLimit === 'fail' ? WikiGameReward.fail : reward,
        terminated: true,
        truncated: true,
        info: this.info(),
      };
    }
    return { observation, reward, terminated: false, truncated: false, info: this.info() };
  }

  /** A uniformly chosen title the player may name now, as GEM samples. */
  sampleRandomAction(): string {
    const titles = this.state ? this.validTitles() : [];
    return `\\boxed{${titles.length ? this.actionRng.choice(titles) : PREV_PAGE}}`;
  }
}

export function registerWikiGame(registry: EnvRegistry): string[] {
  return registerVariants(registry, {
    stem: 'game:WikiGame-v0',
    description: 'Reach a target encyclopedia page by following links (offline link graph by default; Kiwix or MediaWiki optional).',
    schema: WikiGameOptions,
    create: (o, _spec, seed) => new WikiGame(o, seed),
    variants: {
      easy: { max_turns: 30 },
      hard: { max_turns: 15 },
    },
  });
}
