from types import SimpleNamespace

import pytest
from gem_ts_adapter_kit.testing import ScriptedReplies, guesses, stub_modules, tiny_chat_tokenizer

# oat's actor/learner modules import vLLM (the generation engine), DeepSpeed (GPU training),
# launchpad (no Python 3.11 wheel), pyarrow.plasma (gone from pyarrow) and wandb at their top; the
# code under test calls none of them.
stub_modules("vllm", "deepspeed", "launchpad", "pyarrow.plasma", "wandb")

ENV = "game:GuessTheNumber-v0-easy"
REPLIES = guesses([1, 2, 3, 4])


@pytest.fixture(scope="session")
def tokenizer():
    return tiny_chat_tokenizer()


class ScriptedLLM:
    """Stands in for vllm.LLM.generate: one scripted reply per prompt, as RequestOutputs."""

    def __init__(self, tokenizer, replies=REPLIES):
        self.tokenizer = tokenizer
        self.replies = ScriptedReplies(tokenizer, replies)
        self.batches = []

    def generate(self, prompts, sampling_params=None, lora_request=None, use_tqdm=False, **_):
        self.batches.append(list(prompts))
        outs = []
        for prompt in prompts:
            ids = self.tokenizer.encode(prompt, add_special_tokens=False)
            reply = self.replies.generate(ids, getattr(sampling_params, "max_tokens", None))
            sample = SimpleNamespace(
                text=self.tokenizer.decode(reply.token_ids, skip_special_tokens=True),
                token_ids=reply.token_ids,
                logprobs=[{t: SimpleNamespace(logprob=lp)} for t, lp in zip(reply.token_ids, reply.logprobs)],
                finish_reason=reply.finish_reason,
            )
            outs.append(SimpleNamespace(prompt_token_ids=ids, outputs=[sample]))
        return outs
