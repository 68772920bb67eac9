"""The tools the server serves, in tools/list order: one list for every test that checks it."""

SERVED_TOOLS = [
    "display_demo",
    "chess_new_game",
    "chess_move",
    "chess_show_game",
    "chess_list_games",
    "chess_resign",
    "ask_question",
    "submit_form",
    "get_form_response",
]
