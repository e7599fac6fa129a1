// Loaded with `node -r` into a role process by the duplicate-delivery
// scenario only (never by the runtime's build): every core NATS message is
// published twice, every JetStream event is published a second time without
// its msgID (so the stream's de-duplication cannot hide it), and every BullMQ
// job is added a second time under another job id. Consumers must tolerate it.
const { NatsConnectionImpl } = require('nats/lib/nats-base-client/nats');
const { JetStreamClientImpl } = require('nats/lib/jetstream/jsclient');
const { Queue } = require('bullmq');

const publish = NatsConnectionImpl.prototype.publish;
NatsConnectionImpl.prototype.publish = function (subject, data, options) {
  publish.call(this, subject, data, options);
  if (!subject.startsWith('$JS.') && !subject.startsWith('_INBOX')) publish.call(this, subject, data, options);
};

const jsPublish = JetStreamClientImpl.prototype.publish;
JetStreamClientImpl.prototype.publish = async function (subject, data, options) {
  const ack = await jsPublish.call(this, subject, data, options);
  const { msgID: _dropped, ...rest } = options ?? {};
  await jsPublish.call(this, subject, data, rest);
  return ack;
};

const add = Queue.prototype.add;
Queue.prototype.add = async function (name, data, options) {
  const job = await add.call(this, name, data, options);
  await add.call(this, name, data, { ...options, ...(options && options.jobId ? { jobId: `${options.jobId}-again` } : {}) });
  return job;
};
