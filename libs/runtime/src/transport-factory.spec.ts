import { loadConfig } from '@noetl/config';
import { HttpControlPlane } from './control-plane/http-control-plane';
import { createRemoteControlPlane } from './transport-factory';

describe('transport factory', () => {
  it('gives an HTTP control plane only when NOETL_SERVER_URL is set', async () => {
    expect(createRemoteControlPlane(loadConfig({}))).toBeUndefined();
    const remote = createRemoteControlPlane(loadConfig({ NOETL_SERVER_URL: 'http://127.0.0.1:8082/' }));
    expect(remote).toBeInstanceOf(HttpControlPlane);
    await remote?.close();
  });
});
