// What the board says through its live region: moves in words ("knight takes f7, check"), and what changed.

import { NAMES } from "./fen";
import { statusText, type Color, type GameState } from "./game";

const SAN = /^([KQRBN])?([a-h]?[1-8]?)(x?)([a-h][1-8])(?:=([QRBN]))?$/;

/** A move in standard algebraic notation, in words a screen reader reads well. */
export function spokenMove(san: string): string {
  const core = san.replace(/[+#!?]+$/, "");
  const m = SAN.exec(core);
  let text = core;
  if (core.startsWith("O-O")) text = core === "O-O-O" ? "castles queenside" : "castles kingside";
  else if (m) text = [NAMES[m[1] ?? "P"], m[2], m[3] && "takes", m[4], m[5] && `promotes to ${NAMES[m[5]]}`].filter(Boolean).join(" ");
  return text + (san.includes("#") ? ", checkmate" : san.includes("+") ? ", check" : "");
}

const other = (c: Color): Color => (c === "white" ? "black" : "white");
const cap = (c: Color): string => (c === "white" ? "White" : "Black");

/** The moves between two states of one game, who made them, and where the game now stands. */
export function describeMoves(game: GameState, played: readonly string[]): string {
  const phrases: string[] = [];
  let mover = other(game.turn);
  const you = game.opponent === "engine" && game.playerColor;
  for (let i = played.length - 1; i >= 0; i--) {
    const who = you ? (mover === game.playerColor ? "You played" : "The engine replied") : `${cap(mover)} played`;
    phrases.unshift(`${who} ${spokenMove(played[i] ?? "")}.`);
    mover = other(mover);
  }
  return `${phrases.join(" ")} ${statusText(game)}.`.trim();
}
