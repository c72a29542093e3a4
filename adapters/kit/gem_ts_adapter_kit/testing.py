"""CPU stand-ins for what a GPU run loads: a tokenizer built in-process and scripted model replies.

Tests and the examples' `--dry-run` use these; a real run passes the model's own tokenizer and the
trainer's generation engine instead. Needs `transformers` and `tokenizers` (every trainer brings them).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

# A ChatML-style template written for these tests: role header, content, end-of-turn marker.
CHATML_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
ASSISTANT_HEADER = "<|im_start|>assistant\n"
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

_CORPUS = [
    "You are playing a game. I am thinking of a whole number between 1 and 10, inclusive.",
    "Put your guess inside \\boxed{}, for example \\boxed{5}. Enter your next guess.",
    "At turn 2, you guessed 7, and the target number is lower than 7. Congratulations!",
    "system user assistant tool the a an of to in is you your that it for on with as",
    "0 1 2 3 4 5 6 7 8 9 10 11 12 20 50 100 + - * / = ( ) [ ] { } < > , . ; : ! ? ' \"",
]


@functools.lru_cache(maxsize=None)
def _trained_tokenizer_json(vocab_size: int, extra_corpus: Tuple[str, ...]) -> str:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    # Byte-level: every string encodes, so env text never hits an unknown token.
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator((_CORPUS + list(extra_corpus)) * 8, trainer)
    return tok.to_str()


def tiny_chat_tokenizer(vocab_size: int = 512, extra_corpus: Sequence[str] = ()):
    """A byte-level BPE tokenizer trained in-process (deterministic, ~1 s), with a ChatML template.

    `extra_corpus` adds texts to learn merges from, so that a test's prompts encode to few tokens.

    eos = `<|im_end|>` (ends an assistant turn), pad = `<|endoftext|>`, padding on the left as the
    trainers expect for generation. Returns a fresh `PreTrainedTokenizerFast` each call.
    """
    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerFast

    tok = PreTrainedTokenizerFast(
        tokenizer_object=Tokenizer.from_str(_trained_tokenizer_json(vocab_size, tuple(extra_corpus))),
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>"],
        padding_side="left",
    )
    tok.chat_template = CHATML_TEMPLATE
    return tok


def header_count_turn(prompt_text: str) -> int:
    """Which assistant turn a prompt asks for: the number of assistant headers in it, minus one."""
    return max(prompt_text.count(ASSISTANT_HEADER) - 1, 0)


@dataclass
class ScriptedReply:
    text: str
    token_ids: List[int]
    logprobs: List[float]
    finish_reason: str  # "stop" (ended on the end-of-turn token) or "length"


class ScriptedReplies:
    """A deterministic stand-in for the policy: the reply for turn t is `replies[t % len(replies)]`.

    `turn_of` maps the prompt text to the turn; by default it counts assistant headers, which works
    for every trainer that keeps the whole conversation in the prompt.
    """

    def __init__(
        self,
        tokenizer,
        replies: Sequence[str],
        *,
        turn_of: Callable[[str], int] = header_count_turn,
        logprob: float = -0.25,
    ) -> None:
        if not replies:
            raise ValueError("ScriptedReplies needs at least one reply")
        self.tokenizer = tokenizer
        self.replies = list(replies)
        self.turn_of = turn_of
        self.logprob = logprob
        self.prompts: List[str] = []  # every prompt seen, for assertions

    def reply_text(self, prompt_text: str) -> str:
        return self.replies[self.turn_of(prompt_text) % len(self.replies)]

    def generate(self, prompt_ids: Sequence[int], max_tokens: Optional[int] = None) -> ScriptedReply:
        """Token-in/token-out: the scripted reply, ended with the eos token, cut at `max_tokens`."""
        prompt_text = self.tokenizer.decode(list(prompt_ids), skip_special_tokens=False)
        return self.generate_for_text(prompt_text, max_tokens)

    def generate_for_text(self, prompt_text: str, max_tokens: Optional[int] = None) -> ScriptedReply:
        self.prompts.append(prompt_text)
        text = self.reply_text(prompt_text)
        ids = self.tokenizer.encode(text, add_special_tokens=False) + [self.tokenizer.eos_token_id]
        finish = "stop"
        if max_tokens is not None and len(ids) > max_tokens:
            ids, finish = ids[: max(max_tokens, 0)], "length"
        decoded = self.tokenizer.decode(ids, skip_special_tokens=False)
        return ScriptedReply(decoded, ids, [self.logprob] * len(ids), finish)


def guesses(values: Sequence[int]) -> Tuple[str, ...]:
    """Replies that put each value in a box, the answer format of GEM's games."""
    return tuple(f"My guess is \\boxed{{{v}}}" for v in values)


def stub_modules(*roots: str) -> None:
    """Makes `import <root>[.anything]` succeed with placeholder modules (any attribute is a class).

    For trainer modules that import a GPU-only engine at their top (vLLM, SGLang, DeepSpeed, ...)
    when the code under test never calls it. Install before importing the trainer module; tests
    say which roots they stub.
    """
    import importlib.abc
    import importlib.machinery
    import sys
    import types

    class Placeholder(type):
        def __getattr__(cls, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return Placeholder(name, (object,), {})

        def __call__(cls, *args, **kwargs):
            if len(args) == 1 and callable(args[0]) and not kwargs:
                return args[0]  # used as a decorator
            return super().__call__()

    class PlaceholderModule(types.ModuleType):
        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            value = Placeholder(name, (object,), {})
            setattr(self, name, value)
            return value

    class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, fullname, path, target=None):
            if any(fullname == r or fullname.startswith(r + ".") for r in roots):
                return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
            return None

        def create_module(self, spec):
            return PlaceholderModule(spec.name)

        def exec_module(self, module):
            module.__path__ = []

    sys.meta_path.insert(0, Finder())


def tiny_qwen3_config(tokenizer, **overrides):
    """A two-layer Qwen3 config sized for the tokenizer: a model any trainer can build on CPU."""
    from transformers import Qwen3Config

    settings = dict(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=16,
        max_position_embeddings=4096,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
        tie_word_embeddings=True,
        architectures=["Qwen3ForCausalLM"],
    )
    settings.update(overrides)
    return Qwen3Config(**settings)


def play_directly(env_id: str, seed: int, actions: Sequence[str], **options):
    """Plays `actions` on a fresh env (no trainer, no adapter): what an adapter's episode must match.
    Returns (first observation, rewards, observations after each step)."""
    import gem_ts

    env = gem_ts.make(env_id, **options)
    try:
        first, _ = env.reset(seed=seed)
        rewards, observations = [], []
        for action in actions:
            obs, reward, terminated, truncated, _ = env.step(action)
            rewards.append(float(reward))
            observations.append(obs)
            if terminated or truncated:
                break
        return first, rewards, observations
    finally:
        env.close()


def example_checks(framework: str):
    """The two checks every `examples/train_<framework>.py` gets in its adapter's suite: `--help`
    documents it, and `--dry-run` wires everything on CPU. Assign them to test_* names."""
    import subprocess
    import sys
    from pathlib import Path

    example = Path(__file__).resolve().parents[3] / "examples" / f"train_{framework}.py"

    def run(*args: str, timeout: int):
        return subprocess.run([sys.executable, str(example), *args], capture_output=True, text=True, timeout=timeout)

    def check_help() -> None:
        out = run("--help", timeout=120)
        assert out.returncode == 0, out.stderr
        assert "--dry-run" in out.stdout and "gem-ts" in out.stdout

    def check_dry_run(*extra: str, min_env_steps: int = 2) -> None:
        """The dry run must reach the env: its last line reports `N env steps`, at least one per episode."""
        import re

        out = run("--dry-run", *extra, timeout=600)
        assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-4000:]
        m = re.search(r"dry run ok: .*?\b(\d+) env steps", out.stdout)
        assert m, f"no 'dry run ok: … N env steps' line in: {out.stdout[-2000:]}"
        assert int(m.group(1)) >= min_env_steps, m.group(0)

    return check_help, check_dry_run
