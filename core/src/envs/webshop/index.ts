/** GEM's six WebShop ids: {train,test} goals × {html,text,text_rich} observations (reference/gem.md §2.8). */
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerVariants } from '../../registry/variants.ts';
import { WebshopEnv, WebshopOptions } from './webshopEnv.ts';

export function registerWebshop(registry: EnvRegistry): void {
  for (const split of ['train', 'test'] as const) {
    const variants: Record<string, Partial<WebshopOptions>> = {};
    for (const mode of ['html', 'text', 'text_rich'] as const) {
      variants[mode] = { split, observation_mode: mode, max_turns: 15, error_tolerance: 15, format_error_reward: -0.1 };
    }
    registerVariants(registry, {
      stem: `webshop:${split}`,
      description: `Shop a simulated store for a product that fits a request (${split} goals); search[...] and click[...] actions, WebShop's purchase score.`,
      schema: WebshopOptions,
      create: (o, _spec, seed) => new WebshopEnv(o, seed),
      variants,
    });
  }
}
