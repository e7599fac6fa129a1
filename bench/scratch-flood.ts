import { connect } from 'nats';
void (async () => {
  const nats = await connect({ servers: 'nats://127.0.0.1:4222' });
  const tenant = 'dbg1';
  const scope = { tenant_id: tenant, organization_id: 'default' };
  const subjects = [`noetl.${tenant}.execution`, `noetl.${tenant}.work`, `noetl.${tenant}.frames`];
  const enc = new TextEncoder();
  let published = 0;
  const flood = setInterval(() => {
    for (const subject of subjects) {
      nats.publish(subject, enc.encode(JSON.stringify({ ...scope, execution_id: `${published}`, command_id: `${published}`, stage_id: `${published}` })));
      nats.publish(subject, enc.encode('{not json'));
      published += 2;
    }
  }, 1);
  const res = await fetch('http://localhost:18123/api/execute', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: 'e2e/linear', payload: { base: 2 } }) });
  const { execution_id } = (await res.json()) as { execution_id: string };
  const t0 = Date.now();
  for (;;) {
    const d = (await (await fetch(`http://localhost:18123/api/executions/${execution_id}`)).json()) as { status: string };
    if (d.status !== 'RUNNING' || Date.now() - t0 > 60000) { console.log(d.status, Date.now() - t0, 'published', published); break; }
    await new Promise((r) => setTimeout(r, 1000));
  }
  clearInterval(flood);
  await nats.close();
})();
