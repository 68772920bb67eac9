"""The chess app's directory listing and review cases (toolkit/listing.py): what reviewers are promised, each
positive case's calls made by `make test` (tests/functional/test_review_cases.py)."""

from __future__ import annotations

from widget_mcp import Listing, NegativeCase, ReviewCall, ReviewCase, ToolBook

NEW_GAME = ReviewCall("chess_new_game", {"opponent": "engine"}, expect={"status": "active", "ply": 0})
GAME = "{{gameId}}"


def declare_review(book: ToolBook) -> None:
    book.listing = Listing(
        name="Chess Board",
        subtitle="Play chess on a live board",
        description=(
            "Play chess inside the conversation on an interactive board. Start a game against the built-in engine "
            "or share the board with a friend, make moves by clicking pieces or by telling the assistant (e4, Nf3, "
            "O-O), and see check, captures and the result as the game goes. Games are saved, so you can come back "
            "to one later, list your games, see the moves so far, or resign."
        ),
        category="ENTERTAINMENT",
        logo="docs/logos/chess.svg",
        starter_prompts=(
            "Let's play chess: I'll take white against the engine.",
            "Start a chess game and play e4 for me.",
            "Which chess games do I have going?",
        ),
        release_notes="First release: games against the engine or between two people, saved per user.",
    )
    book.review_cases += [
        ReviewCase(
            "Start a game against the engine with the user as white.",
            "Let's play chess: I'll take white against the engine.",
            (NEW_GAME,),
            "A board in the starting position with white to move, and a line saying the game against the engine began.",
        ),
        ReviewCase(
            "Play a move in SAN; the engine answers in the same call.",
            "Start a chess game against the engine and play e4 for me.",
            (NEW_GAME, ReviewCall("chess_move", {"gameId": GAME, "move": "e4"}, expect={"status": "active"})),
            "The board after 1. e4 and the engine's reply, with white to move again.",
        ),
        ReviewCase(
            "Show a saved game: the board and its moves.",
            "Start a chess game, then show me the board and the moves so far.",
            (NEW_GAME, ReviewCall("chess_show_game", {"gameId": GAME}, expect={"ply": 0})),
            "The game's board and its (empty) list of moves; nothing changes.",
        ),
        ReviewCase(
            "List the user's games, newest first.",
            "Which chess games do I have going?",
            (ReviewCall("chess_list_games"),),
            "The user's games with their status and whose turn it is, or a sentence saying there are none yet.",
        ),
        ReviewCase(
            "Resign a game; it ends for good.",
            "Start a chess game against the engine, then resign it.",
            (NEW_GAME, ReviewCall("chess_resign", {"gameId": GAME}, expect={"status": "resigned", "winner": "black"})),
            "The board with the game over: the user resigned and black (the engine) wins.",
        ),
    ]
    book.negative_cases += [
        NegativeCase("Chess knowledge needs no board.", "Who was the world chess champion in 1972?"),
        NegativeCase("Another game than chess.", "Let's play a game of checkers."),
        NegativeCase("An unrelated request.", "What's a good recipe for banana bread?"),
    ]
