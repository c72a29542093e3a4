"""GEM's game env classes (``gem.envs.game_env.*``), each backed by the gem-ts game of the same rules.

GEM's constructor defaults are passed explicitly, so ``GuessTheNumberEnv()`` plays what GEM's does;
a None among a game's size arguments is GEM's random variant (our ``random`` option). Observations
are in gem-ts's words and a seed draws gem-ts's instance (docs/differences-from-gem.md).
"""

from .._served import ServedEnvClass

_IGNORED = ("seed",)  # GEM's games take **_ and ignore a seed argument


class GuessTheNumberEnv(ServedEnvClass):
    ENV_ID = "game:GuessTheNumber-v0"
    GEM_PARAMS = (("min_number", 1), ("max_number", 20), ("max_turns", 20))
    RANDOM_WHEN_NONE = ("min_number", "max_number", "max_turns")
    IGNORED = _IGNORED


class MastermindEnv(ServedEnvClass):
    ENV_ID = "game:Mastermind-v0"
    GEM_PARAMS = (("code_length", 4), ("num_numbers", 6), ("duplicate_numbers", False), ("max_turns", 20))
    RANDOM_WHEN_NONE = ("code_length", "num_numbers", "max_turns")
    IGNORED = _IGNORED


class MinesweeperEnv(ServedEnvClass):
    ENV_ID = "game:Minesweeper-v0"
    GEM_PARAMS = (("rows", 8), ("cols", 8), ("num_mines", 10), ("max_turns", 20))
    RANDOM_WHEN_NONE = ("rows", "cols", "num_mines", "max_turns")
    IGNORED = _IGNORED


class WordleEnv(ServedEnvClass):
    ENV_ID = "game:Wordle-v0"
    GEM_PARAMS = (("word_length", 5), ("only_real_words", True), ("max_turns", 20))
    RANDOM_WHEN_NONE = ("word_length", "max_turns")
    IGNORED = _IGNORED


class FifteenPuzzleEnv(ServedEnvClass):
    ENV_ID = "game:FifteenPuzzle-v0-easy"
    GEM_PARAMS = (("max_turns", 20), ("num_rows", 2))
    RANDOM_WHEN_NONE = ("max_turns", "num_rows")
    IGNORED = _IGNORED


class Game2048Env(ServedEnvClass):
    ENV_ID = "game:Game2048-v0-easy"
    GEM_PARAMS = (("target_tile", 2048), ("max_turns", 1000), ("board_size", 4))
    RANDOM_WHEN_NONE = ("target_tile", "max_turns")
    IGNORED = _IGNORED


class HangmanEnv(ServedEnvClass):
    ENV_ID = "game:Hangman-v0-easy"
    GEM_PARAMS = (("word_length", 5), ("hardcore", False), ("max_turns", 20))
    RANDOM_WHEN_NONE = ("word_length", "max_turns")
    IGNORED = _IGNORED


class SudokuEnv(ServedEnvClass):
    ENV_ID = "game:Sudoku-v0-easy"
    GEM_PARAMS = (("clues", 30), ("max_turns", 100), ("scale", 9))
    RANDOM_WHEN_NONE = ("clues", "max_turns", "scale")
    IGNORED = _IGNORED


class TowerofHanoiEnv(ServedEnvClass):
    ENV_ID = "game:TowerofHanoi-v0-easy"
    GEM_PARAMS = (("num_disks", 3), ("max_turns", 100))
    RANDOM_WHEN_NONE = ("num_disks", "max_turns")
    IGNORED = _IGNORED


class WordSearchEnv(ServedEnvClass):
    ENV_ID = "game:WordSearch-v0-easy"
    GEM_PARAMS = (("hardcore", False), ("max_turns", 20), ("num_words", 5))
    RANDOM_WHEN_NONE = ("hardcore", "max_turns", "num_words")
    IGNORED = _IGNORED


class CrosswordsEnv(ServedEnvClass):
    ENV_ID = "game:Crosswords-v0-easy"
    GEM_PARAMS = (("hardcore", False), ("max_turns", 100), ("num_words", 5))
    RANDOM_WHEN_NONE = ("hardcore", "max_turns", "num_words")
    IGNORED = _IGNORED


class SokobanEnv(ServedEnvClass):
    ENV_ID = "game:Sokoban-v0-easy"
    GEM_PARAMS = (("dim_room", (6, 6)), ("max_turns", 100), ("num_boxes", 3))
    RANDOM_WHEN_NONE = ("dim_room", "max_turns", "num_boxes")
    IGNORED = _IGNORED


GAME_CLASSES = {
    "guess_the_number": GuessTheNumberEnv,
    "mastermind": MastermindEnv,
    "minesweeper": MinesweeperEnv,
    "wordle": WordleEnv,
    "fifteen_puzzle": FifteenPuzzleEnv,
    "game_2048": Game2048Env,
    "hangman": HangmanEnv,
    "sudoku": SudokuEnv,
    "tower_of_hanoi": TowerofHanoiEnv,
    "word_search": WordSearchEnv,
    "crosswords": CrosswordsEnv,
    "sokoban": SokobanEnv,
}
