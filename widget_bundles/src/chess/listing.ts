// `chess_list_games` results: the principal's games, each openable on the board.

import { asText, el, isRecord } from "../shared/dom";

export function renderGameList(games: readonly unknown[], open: (gameId: string) => void): HTMLElement {
  const list = el("ul", { class: "wm-games", "data-testid": "chess-games" });
  for (const game of games) {
    if (!isRecord(game) || typeof game.gameId !== "string") continue;
    const gameId = game.gameId;
    const button = el("button", { type: "button", "data-game-id": gameId }, "Open");
    button.addEventListener("click", () => open(gameId));
    const summary = `${asText(game.status)} · ply ${asText(game.ply)} · vs ${asText(game.opponent)}`;
    list.appendChild(el("li", {}, el("code", {}, gameId), " ", el("span", { class: "wm-muted" }, summary), " ", button));
  }
  if (!list.firstChild) list.appendChild(el("li", { class: "wm-muted" }, "No games yet."));
  return list;
}
