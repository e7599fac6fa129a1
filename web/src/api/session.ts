/** The API key of this browser tab: kept in sessionStorage (gone with the tab), never in a URL. */
const KEY = 'noetl.apiKey';
const SIGNED_OUT = 'noetl:signed-out';

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  signIn: (key: string): void => sessionStorage.setItem(KEY, key),
  /** Forgets the key and tells the app (a 401 from any call lands here). */
  signOut: (): void => {
    sessionStorage.removeItem(KEY);
    window.dispatchEvent(new Event(SIGNED_OUT));
  },
  onSignOut: (listener: () => void): (() => void) => {
    window.addEventListener(SIGNED_OUT, listener);
    return () => window.removeEventListener(SIGNED_OUT, listener);
  },
};
