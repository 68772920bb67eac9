// Light/dark from the host: sets data-theme and color-scheme on <html>, which the CSS variables follow.

export type Theme = "light" | "dark";

export function applyTheme(theme: unknown): void {
  if (theme !== "light" && theme !== "dark") return;
  const root = document.documentElement;
  root.dataset.theme = theme;
  root.style.colorScheme = theme;
}
