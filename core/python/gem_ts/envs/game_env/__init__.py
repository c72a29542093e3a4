"""GEM's ``gem.envs.game_env``: the game env classes, one module each as in GEM."""

from ._classes import (
    CrosswordsEnv,
    FifteenPuzzleEnv,
    Game2048Env,
    GuessTheNumberEnv,
    HangmanEnv,
    MastermindEnv,
    MinesweeperEnv,
    SokobanEnv,
    SudokuEnv,
    TowerofHanoiEnv,
    WordSearchEnv,
    WordleEnv,
)

__all__ = [
    "CrosswordsEnv",
    "FifteenPuzzleEnv",
    "Game2048Env",
    "GuessTheNumberEnv",
    "HangmanEnv",
    "MastermindEnv",
    "MinesweeperEnv",
    "SokobanEnv",
    "SudokuEnv",
    "TowerofHanoiEnv",
    "WordSearchEnv",
    "WordleEnv",
]
