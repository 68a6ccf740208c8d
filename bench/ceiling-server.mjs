// The ceiling: a plain node:http server answering every request with one fixed JSON body of the byte length given
// as argv[2]. It is what the machine can serve with no routing, auth, store or serialisation at all.
import http from 'node:http';

const length = Number(process.argv[2]);
if (!Number.isInteger(length) || length < 16) throw new Error(`body length must be an integer >= 16, got ${process.argv[2]}`);

// {"results":[],"padding":"xxx…"}: valid JSON of exactly `length` bytes.
const head = '{"results":[],"padding":"';
const tail = '"}';
const body = Buffer.from(head + 'x'.repeat(Math.max(0, length - head.length - tail.length)) + tail);
if (body.length !== length) throw new Error(`body is ${body.length} bytes, wanted ${length}`);

const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
