"""The default policy: a tiny GPT-style transformer and a word-level tokenizer built from the env's text."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

from .responses import Responses, cut_at_eos, pad_responses, pick, sampled_logprobs


class WordTokenizer:
    """A tokenizer built in-process from the env's own text.

    Text splits into words (with their leading space, as GPT-2 does), single digits, single
    punctuation marks and whitespace characters. The vocabulary holds every printable ASCII character
    (alone and after a space) plus the words of `corpus`; a word outside it is spelt out character by
    character, so any ASCII text round-trips and numbers are written digit by digit.
    """

    SPECIALS = ("<pad>", "<bos>", "<eos>", "<unk>")
    PIECES = re.compile(r" ?[A-Za-z]+| ?[0-9]| ?[^A-Za-z0-9\s]|\s")

    def __init__(self, corpus: list[str], max_words: int = 4000) -> None:
        chars = ["\n", "\t", " "] + [chr(c) for c in range(33, 127)]
        base = chars + [" " + c for c in chars[3:]]
        counts = Counter(p for text in corpus for p in self.PIECES.findall(text) if len(p.strip()) > 1)
        words = sorted(w for w, _ in counts.most_common(max_words))
        self._set_vocabulary(list(self.SPECIALS) + base + words)

    @classmethod
    def from_vocabulary(cls, itos: list[str]) -> "WordTokenizer":
        """The tokenizer whose vocabulary is `itos` (as saved in the warm-start cache)."""
        tok = cls.__new__(cls)
        tok._set_vocabulary(list(itos))
        return tok

    def _set_vocabulary(self, itos: list[str]) -> None:
        self.itos = itos
        self.stoi = {s: i for i, s in enumerate(itos)}
        self.pad_id, self.bos_id, self.eos_id, self.unk_id = range(4)

    @property
    def vocab_size(self) -> int:
        return len(self.itos)

    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        for piece in self.PIECES.findall(text):
            if piece in self.stoi:
                ids.append(self.stoi[piece])
            else:
                ids += [self.stoi.get(ch, self.unk_id) for ch in piece]
        return ids

    def decode(self, ids) -> str:
        return "".join(self.itos[i] for i in ids if i >= len(self.SPECIALS))


@dataclass
class TinyConfig:
    vocab_size: int
    context: int  # prompt window, in tokens (the observation is cut from the left to fit)
    max_new_tokens: int
    d_model: int = 96
    n_layer: int = 2
    n_head: int = 4

    @property
    def max_positions(self) -> int:
        return self.context + self.max_new_tokens + 1


class Block(nn.Module):
    def __init__(self, cfg: TinyConfig) -> None:
        super().__init__()
        self.n_head = cfg.n_head
        self.ln1 = nn.LayerNorm(cfg.d_model)
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.proj = nn.Linear(cfg.d_model, cfg.d_model)
        self.ln2 = nn.LayerNorm(cfg.d_model)
        self.mlp = nn.Sequential(nn.Linear(cfg.d_model, 4 * cfg.d_model), nn.GELU(), nn.Linear(4 * cfg.d_model, cfg.d_model))

    def forward(self, x: torch.Tensor, past: tuple[torch.Tensor, torch.Tensor] | None, keep_last: int | None = None):
        """`keep_last`: only the last that many positions' outputs are wanted (a fresh sequence only).

        Keys and values are still made for every position; queries, attention output and MLP only for
        the kept ones. The kept rows get the same values as in a full pass: a causal row never reads
        the rows after it, and nothing else does.
        """
        b, t, d = x.shape
        h = self.ln1(x)
        if keep_last is None or keep_last >= t:
            q, k, v = self.qkv(h).view(b, t, 3, self.n_head, d // self.n_head).permute(2, 0, 3, 1, 4)
            mask, causal = None, past is None
        else:
            w, bias = self.qkv.weight, self.qkv.bias
            q = F.linear(h[:, t - keep_last :], w[:d], bias[:d]).view(b, keep_last, self.n_head, -1).transpose(1, 2)
            k, v = F.linear(h, w[d:], bias[d:]).view(b, t, 2, self.n_head, -1).permute(2, 0, 3, 1, 4)
            x = x[:, t - keep_last :]
            mask, causal = torch.ones(keep_last, t, dtype=torch.bool, device=x.device).tril(t - keep_last), False
        if past is not None:
            k, v = torch.cat([past[0], k], dim=2), torch.cat([past[1], v], dim=2)
        # A fresh sequence is causal; a decoding step (one new token) may look at everything before it.
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)
        x = x + self.proj(y.transpose(1, 2).reshape(b, x.shape[1], d))
        x = x + self.mlp(self.ln2(x))
        return x, (k, v)


class TinyCausalLM(nn.Module):
    """A GPT-style decoder: token + learned position embeddings, pre-norm blocks, tied output head."""

    def __init__(self, cfg: TinyConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.tok = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos = nn.Embedding(cfg.max_positions, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layer))
        self.ln_f = nn.LayerNorm(cfg.d_model)
        self.apply(self._init)

    @staticmethod
    def _init(m: nn.Module) -> None:
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)
        if isinstance(m, nn.Linear) and m.bias is not None:
            nn.init.zeros_(m.bias)

    def hidden(self, ids: torch.Tensor, past=None, keep_last: int | None = None):
        """Final hidden states (of the last `keep_last` positions only, when given) and the KV cache.

        Only the last block can skip positions (the blocks below feed every position's keys and
        values to it), and it skips most of its work: the output head and the loss read a few
        positions at the end (the response, or the prompt's last), of a window of dozens.
        """
        start = 0 if past is None else past[0][0].shape[2]
        pos = torch.arange(start, start + ids.shape[1], device=ids.device)
        x = self.tok(ids) + self.pos(pos)
        new_past = []
        last = len(self.blocks) - 1
        for i, block in enumerate(self.blocks):
            x, kv = block(x, None if past is None else past[i], keep_last if i == last and past is None else None)
            new_past.append(kv)
        return self.ln_f(x), new_past

    def forward(self, ids: torch.Tensor, past=None):
        h, new_past = self.hidden(ids, past)
        return h @ self.tok.weight.T, new_past


class TinyPolicy:
    """The tiny model and its tokenizer behind the interface every algorithm uses."""

    def __init__(self, cfg: TinyConfig, tokenizer: WordTokenizer, device: torch.device) -> None:
        self.tokenizer = tokenizer
        self.cfg = cfg
        self.device = device
        self.model = TinyCausalLM(cfg).to(device)
        self.max_new_tokens = cfg.max_new_tokens
        self.hidden_size = cfg.d_model
        self.pad_id = self.tokenizer.pad_id
        # Observation text -> its prompt window. A turn's observation is encoded when it is played,
        # again for the old log-probs and for every minibatch: the cache makes that once.
        self._windows: dict[str, list[int]] = {}

    def prompt(self, observation: str) -> str:
        return observation.rstrip("\n") + "\n>"

    def _window(self, observation: str) -> list[int]:
        row = self._windows.get(observation)
        if row is None:
            c = self.cfg.context
            ids = self.tokenizer.encode(self.prompt(observation))[-c:]
            row = [self.tokenizer.pad_id] * (c - len(ids)) + ids
            if len(self._windows) > 200_000:  # held-out and training states repeat; bound it anyway
                self._windows.clear()
            self._windows[observation] = row
        return row

    def encode_prompts(self, observations: list[str]) -> dict:
        """Fixed-width windows: the last `context` tokens, left-padded, so positions line up."""
        rows = [self._window(o) for o in observations]
        return {"ids": torch.tensor(rows, dtype=torch.long, device=self.device)}

    def prompt_tokens(self, prompts: dict) -> int:
        return int((prompts["ids"] != self.pad_id).sum())

    def encode_targets(self, texts: list[str]) -> Responses:
        tok = self.tokenizer
        rows = [tok.encode(t)[: self.max_new_tokens - 1] + [tok.eos_id] for t in texts]
        return pad_responses(rows, self.max_new_tokens, tok.pad_id, texts, self.device)

    def _logits(self, h: torch.Tensor) -> torch.Tensor:
        return h @ self.model.tok.weight.T

    @torch.no_grad()
    def sample(self, prompts: dict, temperature: float, greedy: bool, generator: torch.Generator) -> Responses:
        """Batched decoding with a KV cache: one forward pass over all prompts, then one per new token."""
        tok = self.tokenizer
        h, past = self.model.hidden(prompts["ids"], keep_last=1)
        last = self._logits(h[:, -1])
        done = torch.zeros(last.shape[0], dtype=torch.bool, device=self.device)
        out, logps = [], []
        for _ in range(self.max_new_tokens):
            nxt = pick(last, temperature, greedy, generator)
            nxt = torch.where(done, torch.full_like(nxt, tok.pad_id), nxt)
            out.append(nxt)
            logps.append(sampled_logprobs(last, nxt))
            done |= nxt == tok.eos_id
            if bool(done.all()):
                break
            h, past = self.model.hidden(nxt[:, None], past)
            last = self._logits(h[:, -1])
        rows, texts = cut_at_eos(torch.stack(out, dim=1).cpu().tolist(), tok.eos_id, tok.decode)
        return pad_responses(rows, self.max_new_tokens, tok.pad_id, texts, self.device,
                             torch.stack(logps, dim=1).cpu().tolist())

    def token_logprobs(self, prompts: dict, resp: Responses) -> torch.Tensor:
        """log pi(token) for every response position, (B, L); differentiable.

        The output head runs on the response positions only (the prompt's are not scored), which
        is most of the head's cost with a 48-token window and 10-token responses.
        """
        ids = torch.cat([prompts["ids"], resp.ids], dim=1)
        h, _ = self.model.hidden(ids, keep_last=resp.ids.shape[1] + 1)
        logits = self._logits(h[:, :-1])
        return torch.log_softmax(logits.float(), dim=-1).gather(-1, resp.ids[..., None]).squeeze(-1)

    def last_hidden(self, prompts: dict) -> torch.Tensor:
        h, _ = self.model.hidden(prompts["ids"], keep_last=1)
        return h[:, -1]

    def warm_start_terms(self, prompts: dict, resp: Responses, lm: bool) -> tuple[torch.Tensor, torch.Tensor | None]:
        """The warm start's two losses from one pass: log π of the target responses, (B, L), and with
        `lm` the mean next-token loss over the prompts' own text (pads not counted). A prompt
        position's output does not depend on the response after it, so this equals scoring each alone."""
        if not lm:
            return self.token_logprobs(prompts, resp), None
        ids = torch.cat([prompts["ids"], resp.ids], dim=1)
        logits, _ = self.model(ids)
        c = prompts["ids"].shape[1]
        logp = torch.log_softmax(logits[:, c - 1 : -1].float(), dim=-1).gather(-1, resp.ids[..., None]).squeeze(-1)
        text = logits[:, : c - 1].float()
        nll = F.cross_entropy(text.reshape(-1, text.shape[-1]), ids[:, 1:c].reshape(-1), ignore_index=self.pad_id)
        return logp, nll

    def describe(self) -> str:
        n = sum(p.numel() for p in self.model.parameters())
        c = self.cfg
        return (f"tiny transformer ({c.n_layer} layers, d={c.d_model}, {c.n_head} heads, {n / 1e3:.0f}k params, "
                f"{c.vocab_size}-token vocabulary, {c.context}-token window)")
