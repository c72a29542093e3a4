"""Tests for examples/benchmark_algorithms.py and its package: the advantage estimators by hand, the
tasks, the tokenizer, flags, then real runs (a --quick grid, the cache, a Hugging Face model)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import benchmark_algorithms as bench  # noqa: E402
from benchmark.advantages import ALGO_LABELS, ALGORITHMS, compute_advantages, discounted_returns, turn_level_gae  # noqa: E402
from benchmark.rollouts import Episode, Transition  # noqa: E402
from benchmark.tasks import TASKS  # noqa: E402
from benchmark.tiny_policy import TinyConfig, TinyPolicy, WordTokenizer  # noqa: E402


def episode(rewards, group=0):
    e = Episode(seed=0, group=group)
    for i, r in enumerate(rewards):
        e.turns.append(Transition("obs", "act", [1], r, i == len(rewards) - 1))
    return e


def test_discounted_returns_run_backwards_within_the_episode():
    assert discounted_returns([0.0, 0.0, 1.0], 0.9) == pytest.approx([0.81, 0.9, 1.0])
    assert discounted_returns([0.5, -0.1], 1.0) == pytest.approx([0.4, -0.1])


def test_rebn_normalises_over_every_transition_of_the_batch():
    eps = [episode([0.0, 1.0]), episode([0.0, 0.0, 0.0])]
    adv, targets = compute_advantages("rebn", eps, 0.5, 0.95, None)
    g = np.array([0.5, 1.0, 0.0, 0.0, 0.0])
    assert targets is None
    assert adv == pytest.approx((g - g.mean()) / g.std())
    # all rewards >= 0, yet some transitions are pushed down: the point of ReBN
    assert (adv < 0).any() and (adv > 0).any()


def test_rebn_of_a_constant_batch_is_zero_not_nan():
    adv, _ = compute_advantages("rebn", [episode([1.0]), episode([1.0])], 0.9, 0.95, None)
    assert adv == pytest.approx([0.0, 0.0])


def test_reinforce_uses_raw_discounted_returns():
    adv, _ = compute_advantages("reinforce", [episode([0.0, 1.0])], 0.9, 0.95, None)
    assert adv == pytest.approx([0.9, 1.0])


def test_grpo_gives_each_turn_its_episodes_group_normalised_total():
    eps = [episode([0.0, 1.0], group=0), episode([0.0, 0.0, 0.0], group=0), episode([0.5], group=1), episode([0.5], group=1)]
    adv, _ = compute_advantages("grpo", eps, 0.9, 0.95, None)
    # group 0: totals 1 and 0 → +1 and −1 on every turn; group 1: equal totals → 0
    assert adv == pytest.approx([1.0, 1.0, -1.0, -1.0, -1.0, 0.0, 0.0])


def test_turn_level_gae_bootstraps_from_the_next_turns_value_and_stops_at_done():
    adv, targets = turn_level_gae([0.0, 1.0], [0.2, 0.5], [False, True], gamma=0.9, lam=0.5)
    d1 = 1.0 - 0.5
    d0 = 0.0 + 0.9 * 0.5 - 0.2
    assert adv == pytest.approx([d0 + 0.9 * 0.5 * d1, d1])
    assert targets == pytest.approx([adv[0] + 0.2, adv[1] + 0.5])
    # lambda = 1 and V = 0: plain discounted returns
    adv, _ = turn_level_gae([0.0, 1.0], [0.0, 0.0], [False, True], gamma=0.9, lam=1.0)
    assert adv == pytest.approx([0.9, 1.0])


def test_ppo_whitens_gae_advantages_over_the_batch():
    eps = [episode([0.0, 1.0]), episode([0.0])]
    adv, targets = compute_advantages("ppo", eps, 0.9, 1.0, [0.0, 0.0, 0.0])
    raw = np.array([0.9, 1.0, 0.0])
    assert adv == pytest.approx((raw - raw.mean()) / raw.std())
    assert targets == pytest.approx(raw)


def test_unknown_algorithm_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown algorithm"):
        compute_advantages("a2c", [episode([1.0])], 0.9, 0.95, None)


def test_tokenizer_round_trips_ascii_and_spells_unknown_words():
    tok = WordTokenizer(["the target number is higher than 5"])
    text = "At turn 3, the zebra guessed \\boxed{10}\n>"
    assert tok.decode(tok.encode(text)) == text
    assert len(tok.encode(" higher")) == 1
    assert len(tok.encode(" zebra")) == len(" zebra")


def test_the_games_random_valid_action_never_repeats_a_guess():
    obs = ("At turn 1, you guessed 3, and the target number is higher than 3.\n"
           "At turn 2, you guessed 7, which you have already guessed before.\nEnter your next guess.")
    rng = np.random.default_rng(0)
    picks = {TASKS["game"].valid_action(rng, obs) for _ in range(400)}
    assert picks == {f"\\boxed{{{k}}}" for k in (1, 2, 4, 5, 6, 8, 9, 10)}


def test_warm_start_language_modelling_loss_learns_the_observation_text():
    corpus = ["At turn 1, you guessed 5, and the target number is higher than 5."] * 4
    tok = WordTokenizer(corpus)
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    policy = TinyPolicy(TinyConfig(tok.vocab_size, 24, 4, 32, 1, 2), tok, torch.device("cpu"))
    prompts = policy.encode_prompts(corpus)
    targets = policy.encode_targets(["\\boxed{7}"] * 4)
    opt = torch.optim.Adam(policy.model.parameters(), lr=1e-2)
    nll = lambda: policy.warm_start_terms(prompts, targets, True)[1]  # noqa: E731
    first = nll().item()
    for _ in range(30):
        loss = nll()
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert nll().item() < 0.2 * first


def test_warm_start_terms_from_one_pass_equal_scoring_each_alone():
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F

    policy = _scoring_policy(torch)
    prompts = policy.encode_prompts(["Turn 2: lamp 3 is lit.", "Hit. Turn 3: lamp 1 is lit."])
    resp = policy.encode_targets(["\\boxed{3}", "\\boxed{1}"])
    logp, nll = policy.warm_start_terms(prompts, resp, True)
    ids = prompts["ids"]
    logits, _ = policy.model(ids[:, :-1])  # the prompt alone, predicting its own next tokens
    alone = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1), ignore_index=policy.pad_id)
    assert torch.allclose(nll, alone, atol=1e-5)
    assert torch.allclose(logp, policy.token_logprobs(prompts, resp), atol=1e-5)
    assert policy.warm_start_terms(prompts, resp, False)[1] is None


def _scoring_policy(torch):
    tok = WordTokenizer(["Turn 2: lamp 3 is lit.", "Hit. Turn 3: lamp 1 is lit."])
    torch.manual_seed(0)
    return TinyPolicy(TinyConfig(tok.vocab_size, 16, 5, 32, 2, 4), tok, torch.device("cpu"))


def test_scoring_only_the_response_positions_gives_the_full_passs_log_probs():
    torch = pytest.importorskip("torch")
    policy = _scoring_policy(torch)
    prompts = policy.encode_prompts(["Turn 2: lamp 3 is lit.", "Hit. Turn 3: lamp 1 is lit.", "Miss."])
    resp = policy.encode_targets(["\\boxed{3}", "\\boxed{1}", "x"])
    logits, _ = policy.model(torch.cat([prompts["ids"], resp.ids], dim=1))  # every position, every block whole
    c = prompts["ids"].shape[1]
    full = torch.log_softmax(logits[:, c - 1 : -1], dim=-1).gather(-1, resp.ids[..., None]).squeeze(-1)
    assert torch.allclose(policy.token_logprobs(prompts, resp), full, atol=1e-5)
    assert torch.allclose(policy.last_hidden(prompts), policy.model.hidden(prompts["ids"])[0][:, -1], atol=1e-5)


def test_the_log_probs_recorded_when_sampling_are_the_policys_own():
    """The update's old log-probs come from sampling; they must equal scoring the responses afterwards
    (at temperature 1 and at 2: the untempered policy's, whatever the sampling temperature)."""
    torch = pytest.importorskip("torch")
    policy = _scoring_policy(torch)
    prompts = policy.encode_prompts(["Turn 2: lamp 3 is lit.", "Hit. Turn 3: lamp 1 is lit."] * 8)
    for temperature in (1.0, 2.0):
        resp = policy.sample(prompts, temperature, False, torch.Generator().manual_seed(1))
        assert resp.logprobs is not None and resp.logprobs.shape == resp.ids.shape
        scored = policy.token_logprobs(prompts, resp)
        assert torch.allclose(resp.logprobs * resp.mask, scored * resp.mask, atol=1e-5)


def test_pick_largest_warm_start_targets_are_the_shown_numbers_only():
    obs = "Write the largest of these numbers inside \\boxed{}, for example \\boxed{1}.\nNumbers: 7 2 9"
    rng = np.random.default_rng(0)
    assert {TASKS["single"].valid_action(rng, obs) for _ in range(200)} == {"\\boxed{7}", "\\boxed{2}", "\\boxed{9}"}
    assert TASKS["single"].env_id == "game:PickLargest-v0"


def test_the_pick_largest_reference_learns_with_a_baseline_and_slower_without():
    from benchmark.pick_reference import reference

    ref = reference(iters=30, seeds=2, eval_prompts=300)["algorithms"]
    start = ref["rebn"]["mean_curve"][0]
    assert 0.25 < start < 0.35  # uniform over 2 to 6 shown numbers: the mean of 1/k
    for algo in ("rebn", "grpo", "ppo"):
        assert ref[algo]["final_success"] > start + 0.2, algo
    assert ref["reinforce"]["auc"] < ref["rebn"]["auc"]


def test_tokenizer_survives_the_cache_round_trip():
    tok = WordTokenizer(["Turn 2: lamp 3 is lit.", "Hit. Turn 3: lamp 1 is lit."])
    again = WordTokenizer.from_vocabulary(tok.itos)
    text = "Miss, lamp 2 was lit. Turn 4: lamp 2 is lit.\n>"
    assert again.encode(text) == tok.encode(text) and again.decode(again.encode(text)) == text


def test_lamp_chain_succeeds_only_when_every_turn_scored():
    dense, game = TASKS["dense"], TASKS["game"]
    assert dense.succeeded([1.0] * 5)
    assert not dense.succeeded([1.0, 1.0, 0.0, 0.5, 1.0])  # three hits, one halved: return 3.5 < 5
    assert not dense.succeeded([1.0] * 4)  # cut short (a format error ends the game)
    assert game.succeeded([0.0, 0.0, 1.0]) and not game.succeeded([0.0, 0.9])


def test_bad_flags_are_rejected():
    with pytest.raises(SystemExit):
        bench.parse_args(["--rollout-envs", "10", "--group-size", "4"])
    with pytest.raises(SystemExit):
        bench.parse_args(["--algos", "a2c"])
    for bad in (["--lr", "0"], ["--context", "-8"], ["--sft-lm-weight", "-1"], ["--seeds", "0"], ["--workers", "0"],
                ["--model", "x", "--workers", "2"]):
        with pytest.raises(SystemExit):
            bench.parse_args(bad)
    assert bench.parse_args(["--sft-lm-weight", "0"]).sft_lm_weight == 0
    args = bench.parse_args(["--seeds", "3", "--seed", "10"])
    assert args.seeds == [10, 11, 12] and args.tasks == ["dense", "game", "single"]


@pytest.mark.timeout(600)
def test_quick_run_gives_every_seed_interval_pair_and_timing(tmp_path):
    results = bench.main(["--quick", "--quiet", "--out", str(tmp_path)])
    for name in ("results.json", "results.md", "curves.png"):
        assert (tmp_path / name).stat().st_size > 0
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["seeds"] == [0, 1] and set(saved["tasks"]) == {"game", "dense", "single"}
    for key, task in saved["tasks"].items():
        assert set(task["seeds"]) == {"0", "1"}
        for per_seed in task["seeds"].values():
            assert set(per_seed["algorithms"]) == set(ALGORITHMS)
            for run in per_seed["algorithms"].values():
                assert run["curve"][0]["iter"] == 0 and run["curve"][-1]["iter"] == run["iters"]
                assert run["clock"]["episodes"] == run["iters"] * 32  # every training episode counted
        rows = task["summary"]["rows"]
        for algo in ALGORITHMS:
            iv = rows[algo]["final_success"]
            assert iv["n"] == 2 and iv["lo"] <= iv["mean"] <= iv["hi"]
        assert len(task["summary"]["pairs"]["auc_success"]) == 6  # 4 algorithms: 6 pairs
    assert len(saved["tasks"]["dense"]["reference"]["algorithms"]) == 4
    tp = saved["throughput"]["per_task_algo"]
    assert set(tp) == {f"{t}/{a}" for t in ("game", "dense", "single") for a in ALGORITHMS}
    for t in tp.values():
        assert t["episodes_per_s"] > 0 and t["tokens_per_s"] > 0
        assert t["env_share"] + t["model_share"] == pytest.approx(1.0)
    table = (tmp_path / "results.md").read_text()
    for label in ALGO_LABELS.values():
        assert f"| {label} |" in table
    assert table.count("| GRPO − PPO |") == 3  # the pair table of every task
    assert "Training throughput" in table and "Reference, a tabular learner" in table
    assert results["tasks"]["dense"]["env_id"] == "game:LampChain-v0"


@pytest.mark.timeout(300)
def test_a_second_run_reuses_the_cached_warm_start(tmp_path):
    flags = ["--tasks", "dense", "--algos", "rebn", "--seeds", "1", "--workers", "1", "--iters", "2", "--eval-every", "1",
             "--eval-episodes", "8", "--rollout-envs", "8", "--sft-steps", "3", "--sft-prompts", "16", "--quiet",
             "--out", str(tmp_path)]
    first = bench.main(flags)
    second = bench.main(flags)
    s1, s2 = first["tasks"]["dense"]["seeds"]["0"], second["tasks"]["dense"]["seeds"]["0"]
    assert not s1["cached"] and s2["cached"]
    assert s1["warm_start"] == s2["warm_start"]
    scores = lambda s: [{k: v for k, v in p.items() if k != "seconds"} for p in s["algorithms"]["rebn"]["curve"]]  # noqa: E731
    assert scores(s1) == scores(s2)  # same start, same seed: the same run
    assert len(list((tmp_path / "cache").glob("dense-seed0-*.pt"))) == 1
    # --report writes the same tables again from results.json, training nothing
    again = bench.main(["--report", str(tmp_path / "results.json"), "--out", str(tmp_path / "again")])
    assert again["tasks"]["dense"]["summary"] == json.loads((tmp_path / "results.json").read_text())["tasks"]["dense"]["summary"]
    assert (tmp_path / "again" / "results.md").read_text().splitlines()[1:] == (tmp_path / "results.md").read_text().splitlines()[1:]
    (tmp_path / "broken.json").write_text("{not json")
    with pytest.raises(SystemExit, match="not a readable results.json"):
        bench.main(["--report", str(tmp_path / "broken.json"), "--out", str(tmp_path / "x")])


def test_the_tabular_reference_learns_faster_per_turn_than_per_episode():
    from benchmark.lamp_reference import lamp_return, reference

    assert lamp_return(1.0, 5) == pytest.approx(5.0)
    assert lamp_return(1 / 3, 5) == pytest.approx(11 / 9)  # a random press: 1/3 + 4 · 2/9
    ref = reference(iters=40, seeds=2)["algorithms"]
    # 40 iterations: ReBN (per-turn, gamma 0.5) reaches 90% hits, GRPO (episode-level) does not yet
    assert all(r is not None for r in ref["rebn"]["iters_to_level"])
    assert ref["rebn"]["final_hit_rate"] > ref["grpo"]["final_hit_rate"] + 0.05


def _tiny_hf_model(path: Path) -> None:
    """A 1-layer GPT-2 and a character-level tokenizer, built from a config and saved locally."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    vocab = {t: i for i, t in enumerate(["<pad>", "<eos>", "<unk>"] + [chr(c) for c in range(32, 127)] + ["\n"])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Split("", "isolated")
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>")
    fast.save_pretrained(path)
    config = GPT2Config(vocab_size=len(vocab), n_positions=512, n_embd=32, n_layer=1, n_head=2,
                        bos_token_id=1, eos_token_id=1, pad_token_id=0)
    GPT2LMHeadModel(config).save_pretrained(path)


@pytest.mark.timeout(300)
def test_model_flag_trains_a_hugging_face_model_from_a_local_path(tmp_path):
    pytest.importorskip("transformers")
    model_dir = tmp_path / "tiny-gpt2"
    _tiny_hf_model(model_dir)
    out = tmp_path / "out"
    results = bench.main([
        "--model", str(model_dir), "--device", "cpu", "--tasks", "single", "--algos", "rebn", "ppo", "--seeds", "1",
        "--iters", "1", "--eval-every", "1", "--eval-episodes", "8", "--rollout-envs", "8",
        "--sft-steps", "2", "--sft-prompts", "16", "--context", "256", "--quiet", "--out", str(out),
    ])
    assert "tiny-gpt2" in results["tasks"]["single"]["policy"]
    for algo in ("rebn", "ppo"):
        run = results["tasks"]["single"]["seeds"]["0"]["algorithms"][algo]
        assert run["clock"]["episodes"] == 8 and run["clock"]["response_tokens"] > 0
        curve = run["curve"]
        assert [p["iter"] for p in curve] == [0, 1]
        assert all(np.isfinite(p["return"]) for p in curve)


@pytest.mark.timeout(600)
def test_training_really_improves_the_policy_on_the_dense_task(tmp_path):
    """A bounded check that learning happens, not just that the loop runs: 15 iterations of
    REINFORCE on LampChain from a short warm start. Measured: return 1.03 -> 3.16 (random pressing
    scores 1.22; the full run reaches 4.1 at iteration 15). ~30 s on 2 idle cores."""
    results = bench.main(["--tasks", "dense", "--algos", "reinforce", "--seeds", "1", "--workers", "1", "--iters", "30",
                          "--eval-every", "15", "--eval-episodes", "64", "--sft-steps", "150", "--quiet", "--out", str(tmp_path)])
    curve = results["tasks"]["dense"]["seeds"]["0"]["algorithms"]["reinforce"]["curve"]
    assert [p["iter"] for p in curve] == [0, 15]
    start, end = curve[0], curve[-1]
    assert end["return"] > start["return"] + 1.0 and end["return"] > 2.5, curve
    assert end["success"] > start["success"] + 0.1, curve
