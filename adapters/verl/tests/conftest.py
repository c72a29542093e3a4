import asyncio

import pytest
from gem_ts_adapter_kit.sessions import close_loop_leases
from gem_ts_adapter_kit.testing import guesses, tiny_chat_tokenizer
from gem_ts_verl import AGENT_LOOP_CONFIG, write_prompt_rows
from gem_ts_verl.testing import ScriptedServerManager, run_worker, verl_config, write_tiny_model_dir

ENV = "game:GuessTheNumber-v0-easy"
REPLIES = guesses([1, 2, 3, 4])


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory):
    return write_tiny_model_dir(tmp_path_factory.mktemp("model"))


@pytest.fixture(scope="session")
def tokenizer():
    return tiny_chat_tokenizer()


@pytest.fixture
def run(model_dir, tokenizer, tmp_path):
    """Runs a real AgentLoopWorker over `rows`; only the LLM server is scripted."""

    def go(rows, *, response_length=512, agent_loop_config=AGENT_LOOP_CONFIG, replies=REPLIES, system_prompt=None,
           worker_class=None, server=None):
        train = write_prompt_rows(tmp_path / "train.parquet", rows, system_prompt=system_prompt)
        cfg = verl_config(model_dir, train, agent_loop_config, response_length=response_length)
        server = server or ScriptedServerManager(tokenizer, replies)

        async def main():
            try:
                return await run_worker(cfg, server, worker_class)
            finally:
                await close_loop_leases()

        return asyncio.run(main()), server

    return go
