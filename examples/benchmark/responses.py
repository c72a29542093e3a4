"""What a policy generates: padded response tokens, their mask, and the action texts sent to the env."""
from __future__ import annotations

from dataclasses import dataclass

import torch

# What an over-long generation is replaced with (GEM's convention): the env treats it as a format error.
INVALID_ACTION = "<｜INVALID_ACTION｜>"


@dataclass
class Responses:
    ids: torch.Tensor  # (B, L) response tokens, padded
    mask: torch.Tensor  # (B, L) 1.0 on real response tokens (the EOS included)
    texts: list[str]  # the actions sent to the env
    # (B, L) log π(token) under the policy that sampled it (at temperature 1, whatever the sampling
    # temperature): the update's old log-probs, so it need not score the batch again before stepping.
    logprobs: torch.Tensor | None = None

    def rows(self, idx) -> "Responses":
        """The responses at positions `idx` (a list of indices or a slice)."""
        texts = self.texts[idx] if isinstance(idx, slice) else [self.texts[i] for i in idx]
        return Responses(self.ids[idx], self.mask[idx], texts, None if self.logprobs is None else self.logprobs[idx])

    def lengths(self) -> list[int]:
        return [int(n) for n in self.mask.sum(dim=1).tolist()]


def pick(logits: torch.Tensor, temperature: float, greedy: bool, generator: torch.Generator | None) -> torch.Tensor:
    """The next token of every row: argmax, or a draw at `temperature` (on the CPU, so draws are reproducible)."""
    if greedy:
        return logits.argmax(-1)
    probs = torch.softmax(logits.float() / temperature, dim=-1)
    return torch.multinomial(probs.cpu(), 1, generator=generator).squeeze(-1).to(logits.device)


def pad_responses(rows: list[list[int]], width: int, pad_id: int, texts: list[str], device,
                  logprobs: list[list[float]] | None = None) -> Responses:
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width))
    lp = None if logprobs is None else torch.zeros((len(rows), width))
    for i, row in enumerate(rows):
        ids[i, : len(row)] = torch.tensor(row, dtype=torch.long)
        mask[i, : len(row)] = 1.0
        if lp is not None:
            lp[i, : len(row)] = torch.tensor(logprobs[i][: len(row)])
    return Responses(ids.to(device), mask.to(device), texts, None if lp is None else lp.to(device))


def sampled_logprobs(logits: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
    """log π(token) of the drawn tokens under the untempered logits, (B,)."""
    return torch.log_softmax(logits.float(), dim=-1).gather(-1, tokens[:, None]).squeeze(-1)


def cut_at_eos(ids: list[list[int]], eos: int, decode) -> tuple[list[list[int]], list[str]]:
    """Each generated row up to and including its EOS, and its text; no EOS means an invalid action."""
    rows, texts = [], []
    for row in ids:
        if eos in row:
            row = row[: row.index(eos) + 1]
            texts.append(decode(row))
        else:
            texts.append(INVALID_ACTION)
        rows.append(row)
    return rows, texts
