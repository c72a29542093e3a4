/** GEM's rg:* ids (reference/gem.md §2.7): one per task of the pinned reasoning-gym package. */
export { registerReasoningGym } from './reasoningGymEnv.ts';
