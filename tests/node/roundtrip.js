// Second-language client: loads our .proto files with @grpc/proto-loader and round-trips
// UpsertAgent -> BufferTurn -> SearchMemory against a running memoryd. Usage: node roundtrip.js HOST:PORT AGENT
'use strict';
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTOS = path.resolve(__dirname, '..', '..', 'protos');
const definition = protoLoader.loadSync('osaurus/memory/v1/memory.proto', {
  includeDirs: [PROTOS],
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
});
const memory = grpc.loadPackageDefinition(definition).osaurus.memory.v1;

function call(client, method, request) {
  return new Promise((resolve, reject) => {
    const deadline = new Date(Date.now() + 20000);
    client[method](request, { deadline }, (err, reply) => (err ? reject(err) : resolve(reply)));
  });
}

async function main() {
  const [target, agent] = process.argv.slice(2);
  const client = new memory.MemoryService(target, grpc.credentials.createInsecure());
  await call(client, 'UpsertAgent', { agent_id: agent, search_memory_enabled: true });
  const buffered = await call(client, 'BufferTurn', {
    agent_id: agent,
    conversation_id: 'node-conversation',
    user_message: 'Our rooftop beehive produced eleven kilograms of linden honey this summer.',
    assistant_message: 'Eleven kilograms is a great harvest.',
  });
  const found = await call(client, 'SearchMemory', {
    agent_id: agent,
    scope: 'SCOPE_TRANSCRIPT',
    query: 'how much honey did the beehive produce',
  });
  let badInput = null;
  try {
    await call(client, 'BufferTurn', { agent_id: '', conversation_id: 'x', user_message: 'hi' });
  } catch (err) {
    badInput = { code: err.code, details: err.details };
  }
  process.stdout.write(JSON.stringify({ signal_id: buffered.signal_id, hits: found.hits, bad_input: badInput }));
  client.close();
}

main().catch((err) => {
  process.stderr.write(`node client failed: ${err.code} ${err.details || err.message}\n`);
  process.exit(1);
});
