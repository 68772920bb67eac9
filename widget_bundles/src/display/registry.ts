// Display widgets (seed 000) by type. A renderer gets the widget's data and returns its element, or throws;
// unknown types and failures show the widget's fallback text instead.

import { asText, el, isRecord } from "../shared/dom";
import { kingSquare, renderBoard } from "../chess/board";
import { parseGame, statusText } from "../chess/game";
import { renderMoveList } from "../chess/moves";

export type Renderer = (data: unknown) => HTMLElement;

export interface DisplayWidget {
  widget: string;
  data: unknown;
  fallback: string;
}

function text(data: unknown): HTMLElement {
  const value = isRecord(data) ? data.text : data;
  if (typeof value !== "string") throw new Error("text widget without text");
  return el("p", { class: "wm-text" }, value);
}

function table(data: unknown): HTMLElement {
  if (!isRecord(data)) throw new Error("table widget without data");
  const rows: unknown[][] = Array.isArray(data.rows)
    ? data.rows.map((row) => (Array.isArray(row) ? row : [row]))
    : Object.entries(isRecord(data.values) ? data.values : data);
  const body = el("tbody");
  for (const row of rows) {
    const [key, ...values] = row;
    body.appendChild(el("tr", {}, el("th", { scope: "row" }, asText(key)), ...values.map((v) => el("td", {}, asText(v)))));
  }
  const caption = typeof data.title === "string" ? el("caption", {}, data.title) : null;
  return el("table", { class: "wm-table" }, caption, body);
}

function chessBoard(data: unknown): HTMLElement {
  const game = parseGame(data);
  if (!game) throw new Error("chess-board widget without a FEN");
  const flipped = isRecord(data) && (data.flipped === true || data.orientation === "black");
  return el(
    "div",
    { class: "wm-chess snapshot" },
    el("p", { class: "status", "data-testid": "chess-status" }, statusText(game)),
    renderBoard({
      fen: game.fen,
      flipped,
      lastMove: game.lastMove,
      checkSquare: game.check ? kingSquare(game.fen, game.turn) : null,
    }),
  );
}

function moveList(data: unknown): HTMLElement {
  if (!isRecord(data) || !Array.isArray(data.moves)) throw new Error("move-list widget without moves");
  const moves = data.moves.map(asText);
  const box = el("div", { class: "wm-move-list" }, renderMoveList(moves));
  if (typeof data.pgn === "string" && data.pgn) box.appendChild(el("pre", { class: "wm-pgn" }, data.pgn));
  return box;
}

export const RENDERERS: ReadonlyMap<string, Renderer> = new Map<string, Renderer>([
  ["text", text],
  ["table", table],
  ["chess-board", chessBoard],
  ["move-list", moveList],
]);

export function parseWidgets(meta: unknown): DisplayWidget[] {
  if (!isRecord(meta) || !Array.isArray(meta.widgets)) return [];
  return meta.widgets.filter(isRecord).map((w) => ({
    widget: typeof w.widget === "string" ? w.widget : "unknown",
    data: w.data,
    fallback: asText(w.fallback),
  }));
}

/** One widget in its `[data-widget]` box: rendered by type, or its fallback (`[data-fallback]`). */
export function renderWidget(widget: DisplayWidget, renderers: ReadonlyMap<string, Renderer> = RENDERERS): HTMLElement {
  const box = el("section", { class: "wm-widget", "data-widget": widget.widget });
  const renderer = renderers.get(widget.widget);
  if (renderer) {
    try {
      box.appendChild(renderer(widget.data));
      box.dataset.rendered = "renderer";
      return box;
    } catch (error) {
      console.warn(`display widget ${widget.widget} fell back:`, error);
      box.replaceChildren();
    }
  }
  box.dataset.rendered = "fallback";
  box.appendChild(el("p", { class: "wm-fallback", "data-fallback": true }, widget.fallback));
  return box;
}
