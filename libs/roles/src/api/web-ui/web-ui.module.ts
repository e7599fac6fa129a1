import { join } from 'node:path';
import { ServeStaticModule } from '@nestjs/serve-static';

/**
 * The web UI (web/, built by Vite into dist/ui) at /ui/. Any other path under
 * /ui/ answers its index.html, so a deep link such as /ui/executions/{id}
 * survives a reload: the app routes in the browser. Static files are not
 * behind the API's guards; everything they show comes from /api, which is.
 */
export const WebUiModule = ServeStaticModule.forRoot({
  // dist/libs/roles/src/api/web-ui -> dist/ui (run from the sources, there is no built UI to serve).
  rootPath: join(__dirname, '..', '..', '..', '..', '..', 'ui'),
  serveRoot: '/ui',
});
