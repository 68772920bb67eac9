// The chess tool contract as the widget reads it: structuredContent (the game) and _meta (history, hints).

import { isRecord } from "../shared/dom";

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
