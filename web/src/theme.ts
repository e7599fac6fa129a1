import { useSyncExternalStore } from 'react';

export type Theme = 'system' | 'light' | 'dark';
export const THEMES: readonly Theme[] = ['system', 'light', 'dark'];

/** The reader's choice, kept in this browser (unlike the key, it is no secret); `system` follows prefers-color-scheme. */
const KEY = 'noetl.theme';
const CHANGED = 'noetl:theme';

const stored = (): Theme => {
  const value = localStorage.getItem(KEY);
  return THEMES.includes(value as Theme) ? (value as Theme) : 'system';
};

/** styles.css picks its colours with light-dark() from the document's color-scheme, which data-theme pins. */
const apply = (theme: Theme): void => {
  if (theme === 'system') delete document.documentElement.dataset['theme'];
  else document.documentElement.dataset['theme'] = theme;
};
apply(stored());

export function setTheme(theme: Theme): void {
  localStorage.setItem(KEY, theme);
  apply(theme);
  window.dispatchEvent(new Event(CHANGED));
}

/** The chosen theme, re-rendering its readers when it changes. */
export function useTheme(): Theme {
  return useSyncExternalStore((changed) => {
    window.addEventListener(CHANGED, changed);
    return () => window.removeEventListener(CHANGED, changed);
  }, stored);
}
