// The chess tool contract as the widget reads it: structuredContent (the game) and _meta (history, hints).

import { isRecord } from "../shared/dom";
import type { ModelContext } from "../shared/model-context";

export type Color = "white" | "black";

export interface LastMove {
  uci: string;
  san: string;
  from: string;
  to: string;
}

export interface GameState {
  gameId: string;
  fen: string;
  turn: Color;
  status: string;
  winner: Color | null;
  ply: number;
  check: boolean;
  lastMove: LastMove | null;
  playerColor?: Color;
  opponent?: string;
}

export interface GameMeta {
  moveHistory?: string[];
  legalMoves?: string[];
  captured?: { white: string[]; black: string[] };
}

/** A move the board never saw (a result without `_meta`): "…", as a move list writes an elided move. */
export const UNSEEN = "…";

const SQUARE = /^[a-h][1-8]$/;

function color(value: unknown): Color | undefined {
  return value === "white" || value === "black" ? value : undefined;
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : undefined;
}

export function parseLastMove(value: unknown): LastMove | null {
  if (!isRecord(value)) return null;
  const { uci, san, from, to } = value;
  if (typeof from !== "string" || typeof to !== "string" || !SQUARE.test(from) || !SQUARE.test(to)) return null;
  return { uci: typeof uci === "string" ? uci : from + to, san: typeof san === "string" ? san : "", from, to };
}

/** The last JSON object a result's text blocks carry (an error's state, serialized after its sentence). */
export function stateInText(content: unknown): unknown {
  const texts = Array.isArray(content) ? content.map((c: unknown) => (isRecord(c) && typeof c.text === "string" ? c.text : "")) : [];
  for (const text of texts.reverse()) {
    if (!text.startsWith("{")) continue;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // Not JSON after all: a sentence that starts with a brace.
    }
  }
  return null;
}

/** A game from a tool result's structuredContent (or a display widget's data); null if it is not one. */
export function parseGame(value: unknown): GameState | null {
  if (!isRecord(value) || typeof value.fen !== "string") return null;
  const turn = color(value.turn) ?? (value.fen.split(" ")[1] === "b" ? "black" : "white");
  return {
    gameId: typeof value.gameId === "string" ? value.gameId : "",
    fen: value.fen,
    turn,
    status: typeof value.status === "string" ? value.status : "active",
    winner: color(value.winner) ?? null,
    ply: typeof value.ply === "number" ? value.ply : 0,
    check: value.check === true,
    lastMove: parseLastMove(value.lastMove),
    playerColor: color(value.playerColor),
    opponent: typeof value.opponent === "string" ? value.opponent : undefined,
  };
}

export function parseMeta(value: unknown): GameMeta {
  if (!isRecord(value)) return {};
  const meta: GameMeta = { moveHistory: strings(value.moveHistory), legalMoves: strings(value.legalMoves) };
  if (isRecord(value.captured)) {
    meta.captured = { white: strings(value.captured.white) ?? [], black: strings(value.captured.black) ?? [] };
  }
  return meta;
}

const CAP = (c: Color): string => (c === "white" ? "White" : "Black");

export function statusText(game: GameState): string {
  switch (game.status) {
    case "checkmate":
      return `Checkmate — ${CAP(game.winner ?? (game.turn === "white" ? "black" : "white"))} wins`;
    case "stalemate":
      return "Stalemate — draw";
    case "draw":
      return "Draw";
    case "resigned":
      return game.winner ? `Resigned — ${CAP(game.winner)} wins` : "Resigned";
    default:
      return `${CAP(game.turn)} to move${game.check ? " — check" : ""}`;
  }
}

/** The last `count` moves of `history`, or the last move alone where the history does not hold them all. */
export function recentMoves(game: GameState, history: readonly string[] = [], count: number): string[] {
  const recent = history.slice(-count);
  if (count > 0 && recent.length === count && !recent.includes(UNSEEN)) return recent;
  return game.lastMove?.san ? [game.lastMove.san] : [];
}

/** What the model is told after a change made on the board: compact (a game id, the moves just played, the FEN).
 *  `history` is the game's SAN list and `sincePly` the ply the board showed before the change. */
export function chessContext(game: GameState, history: string[] = [], sincePly = game.ply - 1): ModelContext {
  const count = game.ply - sincePly;
  const played = recentMoves(game, history, count);
  // Sides alternate, and the last move was made by the side not to move now.
  const side = (i: number): Color => ((played.length - 1 - i) % 2 === 0) === (game.turn === "white") ? "black" : "white";
  const moves = played.length ? `played ${played.map((san, i) => `${san} (${side(i)})`).join(", ")}` : "no move yet";
  const state = game.status === "active" ? `${game.turn} to move${game.check ? ", in check" : ""}` : statusText(game);
  return {
    text: `Chess game ${game.gameId}, changed on the board: ${moves}; ${state}. FEN ${game.fen}`,
    fields: {
      gameId: game.gameId,
      fen: game.fen,
      lastMove: game.lastMove?.san ?? null,
      played,
      turn: game.turn,
      status: game.status,
      winner: game.winner,
      ply: game.ply,
    },
  };
}
