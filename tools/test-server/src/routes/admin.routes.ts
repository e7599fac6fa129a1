import { post, type Route } from '../http/route';

/** `POST /__reset`: clears all in-memory state (allowed by TEST_SERVER.md §0; no fixture calls it). */
export const adminRoutes: Route[] = [
  post('/__reset', ({ state }) => {
    state.reset();
    return { body: { status: 'reset' } };
  }),
];
