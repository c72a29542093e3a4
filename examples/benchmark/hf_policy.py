"""--model: any Hugging Face causal LM behind the same policy interface as the tiny model.

Generation is batched (every active episode of a turn in one `generate` call, left-padded); on a GPU
the weights are bf16 where the device supports it.
"""
from __future__ import annotations

import torch

from .responses import Responses, cut_at_eos, pad_responses, sampled_logprobs


class HFPolicy:
    """A Hugging Face causal LM (--model): same interface, the tokenizer's chat template when it has one."""

    def __init__(self, path: str, max_new_tokens: int, context: int, device: torch.device) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer  # only needed with --model

        self.tokenizer = AutoTokenizer.from_pretrained(path)
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.tokenizer.padding_side = "left"
        # bf16 where the GPU has it (Ampere and later); fp32 on the CPU, where bf16 matmuls are slow.
        bf16 = device.type == "cuda" and torch.cuda.is_bf16_supported()
        dtype = torch.bfloat16 if bf16 else torch.float32
        self.model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype).to(device)
        self.device = device
        self.max_new_tokens = max_new_tokens
        self.context = context
        self.hidden_size = self.model.config.hidden_size
        self.pad_id = self.tokenizer.pad_token_id
        self.path = path

    def prompt(self, observation: str) -> str:
        text = (
            "You are playing language games. Make valid actions to win.\n"
            f"Observation: {observation}\nPut your final answer within \\boxed{{}}."
        )
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template(
                [{"role": "user", "content": text}], tokenize=False, add_generation_prompt=True
            )
        return text + "\n"

    def encode_prompts(self, observations: list[str]) -> dict:
        self.tokenizer.truncation_side = "left"
        enc = self.tokenizer(
            [self.prompt(o) for o in observations], return_tensors="pt", padding=True, truncation=True,
            max_length=self.context, add_special_tokens=False,
        )
        return {"ids": enc["input_ids"].to(self.device), "mask": enc["attention_mask"].to(self.device)}

    def encode_targets(self, texts: list[str]) -> Responses:
        eos = self.tokenizer.eos_token_id
        rows = [self.tokenizer.encode(t, add_special_tokens=False)[: self.max_new_tokens - 1] + [eos] for t in texts]
        return pad_responses(rows, self.max_new_tokens, self.tokenizer.pad_token_id, texts, self.device)

    @torch.no_grad()
    def sample(self, prompts: dict, temperature: float, greedy: bool, generator: torch.Generator) -> Responses:
        gen = self.model.generate(
            input_ids=prompts["ids"], attention_mask=prompts["mask"], max_new_tokens=self.max_new_tokens,
            do_sample=not greedy, temperature=temperature if not greedy else None, top_k=0, top_p=1.0,
            pad_token_id=self.tokenizer.pad_token_id, return_dict_in_generate=True, output_logits=True,
        )
        new = gen.sequences[:, prompts["ids"].shape[1] :]
        # output_logits are the raw logits of each step (before temperature): the untempered log π
        logps = torch.stack([sampled_logprobs(step, new[:, i]) for i, step in enumerate(gen.logits)], dim=1)
        decode = lambda row: self.tokenizer.decode(row, skip_special_tokens=True)  # noqa: E731
        rows, texts = cut_at_eos(new.cpu().tolist(), self.tokenizer.eos_token_id, decode)
        return pad_responses(rows, self.max_new_tokens, self.tokenizer.pad_token_id, texts, self.device,
                             logps.cpu().tolist())

    def prompt_tokens(self, prompts: dict) -> int:
        return int(prompts["mask"].sum())

    def _forward(self, prompts: dict, resp: Responses, hidden: bool = False):
        ids = torch.cat([prompts["ids"], resp.ids], dim=1)
        mask = torch.cat([prompts["mask"], resp.mask.long()], dim=1)
        pos = (mask.cumsum(-1) - 1).clamp(min=0)
        return self.model(input_ids=ids, attention_mask=mask, position_ids=pos, output_hidden_states=hidden)

    def token_logprobs(self, prompts: dict, resp: Responses) -> torch.Tensor:
        logits = self._forward(prompts, resp).logits
        c = prompts["ids"].shape[1]
        logits = logits[:, c - 1 : -1]
        return torch.log_softmax(logits.float(), dim=-1).gather(-1, resp.ids[..., None]).squeeze(-1)

    def warm_start_terms(self, prompts: dict, resp: Responses, lm: bool) -> tuple[torch.Tensor, torch.Tensor | None]:
        """log π of the target responses and, with `lm`, the mean next-token loss over the prompts."""
        if not lm:
            return self.token_logprobs(prompts, resp), None
        labels = prompts["ids"].masked_fill(prompts["mask"] == 0, -100)
        nll = self.model(input_ids=prompts["ids"], attention_mask=prompts["mask"], labels=labels).loss.float()
        return self.token_logprobs(prompts, resp), nll

    def last_hidden(self, prompts: dict) -> torch.Tensor:
        out = self.model(input_ids=prompts["ids"], attention_mask=prompts["mask"], output_hidden_states=True)
        return out.hidden_states[-1][:, -1].float()  # left padding: the last position is the prompt's end

    def describe(self) -> str:
        n = sum(p.numel() for p in self.model.parameters())
        return f"{self.path} ({n / 1e6:.0f}M params)"


