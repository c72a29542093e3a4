/**
 * WebShop (GEM's `webshop:*`): shop in a small simulated store for a product that fits a written
 * request. Each turn the agent puts one action in \boxed{}: `search[query]` on the search page, or
 * `click[x]` where x is a button, a product id or an option value on the current page. Buy Now ends the
 * episode with WebShop's purchase score (score.ts). Any other action costs `format_error_reward`, the
 * page stays as it was, and the episode ends once errors exceed `error_tolerance`. After `max_turns`
 * turns the episode ends with both flags set.
 *
 * The store runs in-process over a catalog of JSONL files (catalog.ts); search is BM25 over the
 * products (tools/search), showing `results_per_page` of the top `search_topk` hits per page.
 */
import { z } from 'zod';
import { BaseEnv } from '../../core/baseEnv.ts';
import { GemError } from '../../core/errors.ts';
import type { Info, ResetResult, StepResult } from '../../core/env.ts';
import { lastBoxed } from '../games/common.ts';
import { DEFAULT_GOALS, DEFAULT_PRODUCTS, loadCatalog, type Catalog, type Goal } from './catalog.ts';
import { BUTTON, clickables, hasSearchBar, money, pageCount, pageElements, type Element, type PageState, type SiteLayout } from './pages.ts';
import { renderPage } from './render.ts';
import { scorePurchase } from './score.ts';

export const WebshopOptions = z
  .object({
    observation_mode: z.enum(['html', 'text', 'text_rich']).default('text'),
    split: z.enum(['train', 'test']).default('train'),
    max_turns: z.number().int().positive().default(15),
    /** Adds an Attributes sub-page to item pages (WebShop's show_attrs). */
    show_attrs: z.boolean().default(false),
    /** Fixes the goal: an index into the split's goals, used at every reset. */
    session: z.number().int().nonnegative().nullable().default(null),
    /** Prepended to the goal index in info.session (WebShop's session ids). */
    session_prefix: z.string().nullable().default(null),
    error_tolerance: z.number().int().nonnegative().default(0),
    format_error_reward: z.number().finite().default(0),
    /** Products JSONL (core/data/webshop/README.md); default: the catalog shipped with gem-ts. */
    catalog: z.string().min(1).nullable().default(null),
    /** Goals JSONL; default: the goals shipped with gem-ts. */
    goals: z.string().min(1).nullable().default(null),
    search_topk: z.number().int().positive().default(50),
    results_per_page: z.number().int().positive().default(10),
  })
  .strict();
export type WebshopOptions = z.infer<typeof WebshopOptions>;

interface State {
  /** Index into this split's goals. */
  goal: number;
  turn: number;
  errors: number;
  page: PageState;
}

type ParsedAction = { ok: true; name: 'search' | 'click'; arg: string } | { ok: false; why: string };

const ACTION = /^([A-Za-z_]+)\[(.*)\]$/s;

/** The last \boxed{...} as `search[q]` or `click[x]`; the argument is lower-cased (WebShop's rule). */
export function parseAction(text: string): ParsedAction {
  const inner = lastBoxed(text);
  if (inner === undefined) return { ok: false, why: 'no action was given inside \\boxed{}' };
  const m = ACTION.exec(inner.trim());
  if (!m) return { ok: false, why: `"${inner.trim()}" is not of the form search[...] or click[...]` };
  const name = m[1].toLowerCase();
  if (name !== 'search' && name !== 'click') return { ok: false, why: `"${m[1]}" is not an action; use search[...] or click[...]` };
  const arg = m[2].trim().toLowerCase();
  if (!arg) return { ok: false, why: `${name}[] needs ${name === 'search' ? 'a query' : 'the text of an element'} inside the brackets` };
  return { ok: true, name, arg };
}

export class WebshopEnv extends BaseEnv<State> {
  protected override readonly resetOptionKeys = ['session'];
  readonly goals: Goal[];
  private readonly layout: SiteLayout;

  constructor(
    readonly options: WebshopOptions,
    seed?: number,
    readonly catalog: Catalog = loadCatalog(options.catalog ?? DEFAULT_PRODUCTS, options.goals ?? DEFAULT_GOALS),
  ) {
    super(seed);
    this.goals = catalog.goals.filter((g) => g.split === options.split);
    if (!this.goals.length) throw new GemError('DATASET_INVALID', `The WebShop goals have no '${options.split}' goals.`);
    if (options.session !== null) this.checkSession(options.session);
    this.layout = { resultsPerPage: options.results_per_page, showAttrs: options.show_attrs };
  }

  protected clone(): WebshopEnv {
    return new WebshopEnv(this.options, undefined, this.catalog);
  }

  private checkSession(session: unknown): number {
    if (typeof session !== 'number' || !Number.isInteger(session) || session < 0 || session >= this.goals.length) {
      throw new GemError(
        'INVALID_OPTIONS',
        `WebShop session must be an integer in [0, ${this.goals.length - 1}] (the ${this.options.split} goals), got ${JSON.stringify(session)}.`,
      );
    }
    return session;
  }

  /** The goal of the current episode. */
  get goal(): Goal {
    return this.goals[this.state.goal];
  }

  private drawGoal(): number {
    let total = 0;
    for (const g of this.goals) total += g.weight;
    let x = this.rng.random() * total;
    for (let i = 0; i < this.goals.length; i++) {
      x -= this.goals[i].weight;
      if (x < 0) return i;
    }
    return this.goals.length - 1;
  }

  protected newEpisode(options?: Record<string, unknown>): ResetResult {
    let goal: number;
    if (options && options.session !== undefined) goal = this.checkSession(options.session);
    else if (this.options.session !== null) goal = this.options.session;
    else goal = this.drawGoal();
    this.state = { goal, turn: 0, errors: 0, page: { kind: 'search' } };
    const elements = this.elements();
    return { observation: this.render(elements), info: this.info(elements) };
  }

  private elements(): Element[] {
    return pageElements(this.state.page, this.catalog, this.layout);
  }

  private render(elements: readonly Element[]): string {
    return renderPage(elements, this.options.observation_mode, this.goal.instruction);
  }

  private info(elements: readonly Element[], extra: Info = {}): Info {
    const s = this.state;
    const prefix =
      `You are shopping in an online store on behalf of a customer. Their request: "${this.goal.instruction}"\n` +
      'Each turn, take one action: search[your query] on the search page, or click[element] to click a button, ' +
      'a product id or an option value shown on the current page. Choose the options the request asks for, ' +
      `then click Buy Now on the product that fits best.\nTurn ${Math.min(s.turn + 1, this.options.max_turns)} of ${this.options.max_turns}.\n`;
    const actions = clickables(elements).map((c) => `click[${c}]`);
    if (hasSearchBar(elements)) actions.unshift('search[<your query>]');
    const example = actions[0] === 'search[<your query>]' ? `search[${this.goal.product_type}]` : actions[0];
    // A finished episode (after Buy Now) has no actions left to offer.
    const suffix = actions.length
      ? `\nAvailable actions: ${actions.join(', ')}\n` +
        `Think it through, then give exactly one action inside \\boxed{}, for example \\boxed{${example}}.`
      : '';
    return { prefix, suffix, session: `${this.options.session_prefix ?? ''}${s.goal}`, ...extra };
  }

  protected applyAction(action: string): StepResult {
    const s = this.state;
    s.turn += 1;
    const atLimit = s.turn >= this.options.max_turns;
    const parsed = parseAction(action);
    const problem = parsed.ok ? this.whyInvalid(parsed) : parsed.why;
    if (problem !== undefined || !parsed.ok) {
      s.errors += 1;
      const over = s.errors > this.options.error_tolerance;
      const elements = this.elements();
      const note = over ? ' Too many invalid actions: the episode is over.' : ' The page is unchanged.';
      const shown: Element[] = [{ kind: 'text', text: `Invalid action: ${problem}.${note}` }, ...elements];
      return {
        observation: this.render(shown),
        reward: this.options.format_error_reward,
        terminated: over || atLimit,
        truncated: atLimit,
        info: this.info(elements, { parsed_action: action, tool_type: 'webshop', format_error: true }),
      };
    }
    const parsedAction = `${parsed.name}[${parsed.arg}]`;
    if (parsed.name === 'click' && parsed.arg === BUTTON.buyNow.toLowerCase() && s.page.kind === 'item') {
      return this.buy(s.page, parsedAction);
    }
    this.transition(parsed.name, parsed.arg);
    const elements = this.elements();
    const shown: Element[] = atLimit ? [{ kind: 'text', text: `You have used all ${this.options.max_turns} turns without buying anything.` }, ...elements] : elements;
    return {
      observation: this.render(shown),
      reward: 0,
      terminated: atLimit,
      truncated: atLimit,
      info: this.info(elements, { parsed_action: parsedAction, tool_type: 'webshop' }),
    };
  }

  /** Why an action of the right form cannot be taken on this page, or undefined if it can. */
  private whyInvalid(a: { name: 'search' | 'click'; arg: string }): string | undefined {
    const elements = this.elements();
    if (a.name === 'search') {
      return hasSearchBar(elements) ? undefined : 'there is no search bar on this page (click [Back to Search] first)';
    }
    if (a.arg === 'search') return 'search is done with search[your query], not by clicking';
    return clickables(elements).includes(a.arg) ? undefined : `"${a.arg}" is not a clickable element on this page`;
  }

  private transition(name: 'search' | 'click', arg: string): void {
    const s = this.state;
    const page = s.page;
    if (name === 'search') {
      const hits = this.catalog.index.search(arg, this.options.search_topk).map((h) => h.doc);
      s.page = { kind: 'results', query: arg, hits, page: 1 };
      return;
    }
    if (arg === BUTTON.backToSearch.toLowerCase()) {
      s.page = { kind: 'search' };
      return;
    }
    switch (page.kind) {
      case 'results': {
        if (arg === BUTTON.next.toLowerCase()) page.page = Math.min(page.page + 1, pageCount(page.hits.length, this.layout.resultsPerPage));
        else if (arg === BUTTON.prev.toLowerCase()) page.page = Math.max(1, page.page - 1);
        else {
          const product = this.catalog.byAsin.get(arg);
          if (product === undefined) throw new GemError('INTERNAL', `WebShop: clickable '${arg}' has no product.`);
          s.page = { kind: 'item', query: page.query, hits: page.hits, page: page.page, product, selected: {} };
        }
        return;
      }
      case 'item': {
        if (arg === BUTTON.prev.toLowerCase()) {
          s.page = { kind: 'results', query: page.query, hits: page.hits, page: page.page };
          return;
        }
        for (const sub of ['description', 'features', 'attributes'] as const) {
          if (arg === sub) {
            s.page = { ...page, kind: 'sub', sub };
            return;
          }
        }
        // Otherwise an option value: choosing one replaces the earlier choice in its group.
        const p = this.catalog.products[page.product];
        for (const [group, values] of Object.entries(p.options)) {
          const v = values.find((x) => x.toLowerCase() === arg);
          if (v !== undefined) {
            page.selected[group] = v;
            return;
          }
        }
        throw new GemError('INTERNAL', `WebShop: clickable '${arg}' has no effect on the item page.`);
      }
      case 'sub': {
        // The only other clickable on a sub-page is < Prev, back to the item with its choices.
        const { sub: _sub, ...item } = page;
        s.page = { ...item, kind: 'item' };
        return;
      }
      case 'search':
        throw new GemError('INTERNAL', `WebShop: clickable '${arg}' on the search page.`);
    }
  }

  private buy(page: Extract<PageState, { kind: 'item' }>, parsedAction: string): StepResult {
    const product = this.catalog.products[page.product];
    const score = scorePurchase(this.goal, product, page.selected);
    const chosen = Object.entries(page.selected).map(([g, v]) => `${g}: ${v}`).join(', ') || 'none';
    const elements: Element[] = [
      { kind: 'text', text: 'Thank you for shopping with us!' },
      { kind: 'text', text: `You bought ${product.asin}: ${product.title}, for ${money(product.price)}.` },
      { kind: 'text', text: `Options chosen: ${chosen}.` },
      { kind: 'text', text: `Your score (from 0 to 1): ${Number(score.reward.toFixed(4))}` },
    ];
    return {
      observation: this.render(elements),
      reward: score.reward,
      terminated: true,
      truncated: false,
      info: this.info([], { parsed_action: parsedAction, tool_type: 'webshop', asin: product.asin, selected: { ...page.selected }, webshop_score: score }),
    };
  }

  sampleRandomAction(): string {
    if (!this.state) return `\\boxed{search[${this.actionRng.choice(this.catalog.products).product_type}]}`;
    const elements = this.elements();
    const clicks = clickables(elements).map((c) => `click[${c}]`);
    if (hasSearchBar(elements)) {
      // A query of two or three words from the request, the way a shopper might start.
      const words = this.goal.instruction.split(/[^a-z0-9-]+/i).filter((w) => w.length > 3);
      const k = Math.min(words.length, this.actionRng.int(2, 3));
      const query = words.length ? this.actionRng.sample(words, k).join(' ') : this.goal.product_type;
      return `\\boxed{search[${query}]}`;
    }
    return `\\boxed{${this.actionRng.choice(clicks)}}`;
  }
}
