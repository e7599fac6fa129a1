import { chromium, type Page } from 'playwright-core';

/** The flags the e2e spec gives the Debian Chromium: headless, and no reaching for Google's services on a closed network. */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface UiTimings {
  /** From navigation to the first row of the list, ms, one per run. */
  listFirstPage: number[];
  /** From navigation to the big execution shown: header, graph, slider and its state at the last event, ms. */
  openBigExecution: number[];
  /** From moving the slider to the first frame painted with the state at that position, ms, one per position. */
  scrub: { position: number; ms: number }[];
  /** Events of the big execution (the slider's last position). */
  events: number;
}

export interface TimingOptions {
  serverUrl: string;
  apiKey: string;
  bigExecutionId: string;
  chromiumPath: string;
  runs: number;
  scrubs: number;
}

/**
 * The quality bars of issue 24 measured as a user meets them: Chromium at
 * 1280x800, signed in, timing from the action (a navigation, a move of the
 * slider) to what the user waits for being on the screen. Each navigation is
 * a fresh load of the app (no cache of API answers survives it).
 */
export async function measureUi(options: TimingOptions): Promise<UiTimings> {
  const browser = await chromium.launch({ executablePath: options.chromiumPath, args: CHROMIUM_FLAGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await signIn(page, options);

    const listFirstPage: number[] = [];
    for (let run = 0; run < options.runs; run++) {
      listFirstPage.push(
        await timed(page, `${options.serverUrl}/ui/executions`, () => page.getByRole('row').nth(1).getByRole('link').first().waitFor()),
      );
    }

    const openBigExecution: number[] = [];
    const slider = page.getByRole('slider', { name: 'Event position' });
    let events = 0;
    for (let run = 0; run < options.runs; run++) {
      openBigExecution.push(
        await timed(page, `${options.serverUrl}/ui/executions/${options.bigExecutionId}`, async () => {
          await page.getByRole('figure', { name: 'Playbook graph' }).getByText('items').waitFor();
          await page.getByText(/Status after event \d+: COMPLETED/).waitFor();
          events = Number(await slider.getAttribute('max'));
        }),
      );
    }

    const scrub: UiTimings['scrub'] = [];
    for (const position of spread(events, options.scrubs)) {
      scrub.push({ position, ms: Math.round(await slider.evaluate(scrubTo, position)) });
      await page.getByText(new RegExp(`Status after event ${position}:`)).waitFor();
    }
    if (errors.length > 0) throw new Error(`the page threw: ${errors.join('; ')}`);
    return { listFirstPage, openBigExecution, scrub, events };
  } finally {
    await browser.close();
  }
}

/** The browser's globals scrubTo uses, named here: the process compiles without the DOM library. */
interface InPage {
  document: { querySelector(selector: string): { textContent: string | null } | null };
  requestAnimationFrame(callback: () => void): number;
  Event: new (type: string, init: { bubbles: boolean }) => object;
  HTMLInputElement: { prototype: object };
}

interface Slider {
  dispatchEvent(event: object): boolean;
}

/**
 * Runs in the page, timed by its own clock (a round trip of the test
 * driver per check would add tens of ms to each figure): moves the slider as
 * a drag does (the value, then an input event), and resolves at the first
 * frame painted after the state at that position is on the page. Playwright
 * sends its source to the page: it uses nothing from outside its body.
 */
async function scrubTo(element: object, position: number): Promise<number> {
  const web = globalThis as unknown as InPage;
  const slider = element as Slider;
  const began = performance.now();
  // React tracks the value it set: set it through the prototype's setter, as the browser does for a drag.
  Object.getOwnPropertyDescriptor(web.HTMLInputElement.prototype, 'value')?.set?.call(slider, String(position));
  slider.dispatchEvent(new web.Event('input', { bubbles: true }));
  const shown = (): boolean => (web.document.querySelector('.state-at p')?.textContent ?? '').startsWith(`Status after event ${position}:`);
  await new Promise<void>((resolve) => {
    const check = (): void => void (shown() ? resolve() : web.requestAnimationFrame(check));
    check();
  });
  await new Promise<void>((resolve) => web.requestAnimationFrame(resolve));
  return performance.now() - began;
}

async function signIn(page: Page, options: TimingOptions): Promise<void> {
  await page.goto(`${options.serverUrl}/ui/sign-in`);
  await page.getByLabel('API key').fill(options.apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Executions' }).waitFor();
}

async function timed(page: Page, url: string, shown: () => Promise<unknown>): Promise<number> {
  const began = performance.now();
  await page.goto(url);
  await shown();
  return Math.round(performance.now() - began);
}

/** `count` positions evenly over 1..last (both ends included), visited in an order that jumps about (a stride prime to `count`). */
function spread(last: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => 1 + Math.floor((((i * 7919) % count) * (last - 1)) / Math.max(count - 1, 1)));
}
