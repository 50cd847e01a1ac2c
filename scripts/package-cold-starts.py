#!/usr/bin/env python3
"""Cold starts of function.zip layouts as Lambda's java21 runtime loads them (docs/adr/0013): each zip
unpacked into a task root, AWS's runtime interface client with the deployed handler, the function
loaded through the client's class loader over the task root and lib/*.jar, no AppCDS archive, a
Runtime API of its own that hands out one event, dynalite as the store. Per start: wall time and the
sandbox's CPU time (utime + stime from /proc) to the end of init (its first GET .../next) and to its
first answer. Layouts interleaved, their order rotated each round; medians at the end.

  scripts/package-cold-starts.py ROUNDS NAME=ZIP [NAME=ZIP ...]

Needs `./mvnw package` once (the runtime interface client in ~/.m2) and `npm ci` (dynalite). Linux x86_64.
The events: charge GET /payments/{id} of a missing payment (404), webhook a badly signed delivery
(401), reconcile a scheduled event (a sweep over an empty table)."""
import urllib.error, json, os, signal, subprocess, sys, threading, time, urllib.request, zipfile, socket, statistics, shutil
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
M2 = os.path.expanduser('~/.m2/repository')
RIC_CP = ':'.join([
    f'{M2}/com/amazonaws/aws-lambda-java-runtime-interface-client/2.10.1/aws-lambda-java-runtime-interface-client-2.10.1.jar',
    f'{M2}/com/amazonaws/aws-lambda-java-core/1.4.0/aws-lambda-java-core-1.4.0.jar',
    f'{M2}/com/amazonaws/aws-lambda-java-serialization/1.2.0/aws-lambda-java-serialization-1.2.0.jar',
    f'{M2}/software/amazon/awssdk/utils-lite/2.42.22/utils-lite-2.42.22.jar'])
HANDLER = 'io.quarkus.funqy.lambda.FunqyStreamHandler::handleRequest'
WORK = os.path.join(ROOT, 'target', 'package-cold-starts')
TICK = os.sysconf('SC_CLK_TCK')


def free_port():
    s = socket.socket(); s.bind(('127.0.0.1', 0)); p = s.getsockname()[1]; s.close(); return p


def events():
    base = json.load(open(f'{ROOT}/oncepay-testkit/src/main/resources/events/http-api-v2.json'))
    get = json.loads(json.dumps(base))
    get['routeKey'] = get['requestContext']['routeKey'] = 'GET /payments/{id}'
    get['rawPath'] = get['requestContext']['http']['path'] = '/payments/pay_00000000000000000000000000000000'
    get['requestContext']['http']['method'] = 'GET'
    get['pathParameters'] = {'id': 'pay_00000000000000000000000000000000'}
    hook = json.loads(json.dumps(base))
    hook['routeKey'] = hook['requestContext']['routeKey'] = 'POST /webhooks/{provider}'
    hook['rawPath'] = hook['requestContext']['http']['path'] = '/webhooks/sim'
    hook['pathParameters'] = {'provider': 'sim'}
    del hook['requestContext']['authorizer']
    hook['headers']['payment-signature'] = 't=1764496800,v1=' + '0' * 64
    hook['body'] = '{"id":"evt_1","type":"charge.succeeded","data":{"chargeId":"ch_1","reference":"pay_1","status":"succeeded","amount":1,"currency":"EUR"}}'
    sched = {"version": "0", "id": "cold-start", "detail-type": "Scheduled Event", "source": "aws.events",
             "account": "000000000000", "time": "2026-12-01T00:00:00Z", "region": "us-east-1",
             "resources": ["arn:aws:events:us-east-1:000000000000:rule/oncepay-reconcile"], "detail": {}}
    return {'charge': (get, '404'), 'webhook': (hook, '401'), 'reconcile': (sched, 'examined')}


class RuntimeApi:
    """One invocation's Lambda Runtime API: hands out the event once, records init and answer."""

    def __init__(self, event):
        self.event = json.dumps(event).encode()
        self.given = False
        self.next_at = None
        self.answer_at = None
        self.answer = None
        self.cpu_next = None
        self.cpu_answer = None
        self.pid = None
        self.done = threading.Event()
        api = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                if api.given:
                    time.sleep(3600)
                    return
                api.next_at = time.monotonic()
                api.cpu_next = cpu(api.pid)
                api.given = True
                self.send_response(200)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Lambda-Runtime-Aws-Request-Id', 'req-1')
                self.send_header('Lambda-Runtime-Deadline-Ms', str(int(time.time() * 1000) + 60000))
                self.send_header('Lambda-Runtime-Invoked-Function-Arn', 'arn:aws:lambda:us-east-1:000000000000:function:f')
                self.send_header('Lambda-Runtime-Trace-Id', 'Root=1-00000000-000000000000000000000000')
                self.send_header('Content-Length', str(len(api.event)))
                self.end_headers()
                self.wfile.write(api.event)

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get('Content-Length') or 0))
                api.answer_at = time.monotonic()
                api.cpu_answer = cpu(api.pid)
                api.answer = (self.path, body.decode(errors='replace'))
                self.send_response(202)
                self.send_header('Content-Length', '0')
                self.end_headers()
                api.done.set()

        self.server = ThreadingHTTPServer(('127.0.0.1', 0), H)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def port(self):
        return self.server.server_address[1]


def cpu(pid):
    with open(f'/proc/{pid}/stat') as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / TICK


def dynalite():
    port = free_port()
    proc = subprocess.Popen(['node', f'{ROOT}/node_modules/dynalite/cli.js', '--port', str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            call(port, 'CreateTable', {'TableName': 'oncepay-cold', 'AttributeDefinitions': [{'AttributeName': 'pk', 'AttributeType': 'S'}],
                                       'KeySchema': [{'AttributeName': 'pk', 'KeyType': 'HASH'}], 'ProvisionedThroughput': {'ReadCapacityUnits': 5, 'WriteCapacityUnits': 5}})
            break
        except urllib.error.HTTPError as e:
            raise SystemExit('CreateTable: ' + e.read().decode())
        except OSError:
            time.sleep(0.2)
    for _ in range(100):
        if call(port, 'DescribeTable', {'TableName': 'oncepay-cold'})['Table']['TableStatus'] == 'ACTIVE':
            return proc, port
        time.sleep(0.2)
    raise SystemExit('table not active')


def call(port, op, body):
    req = urllib.request.Request(f'http://127.0.0.1:{port}/', data=json.dumps(body).encode(), headers={
        'X-Amz-Target': 'DynamoDB_20120810.' + op, 'X-Amz-Date': '20261201T000000Z', 'Content-Type': 'application/x-amz-json-1.0',
        'Authorization': 'AWS4-HMAC-SHA256 Credential=local/20261201/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0'})
    return json.loads(urllib.request.urlopen(req, timeout=5).read())


def task_root(name, zip_path):
    root = f'{WORK}/task-{name}'
    shutil.rmtree(root, ignore_errors=True)
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(root)
    return root


def start(root, function, event, store_port, jni):
    api = RuntimeApi(event)
    env = {'PATH': os.environ['PATH'], '_HANDLER': HANDLER, 'AWS_LAMBDA_RUNTIME_API': f'127.0.0.1:{api.port}',
           'LAMBDA_TASK_ROOT': root, 'AWS_LAMBDA_FUNCTION_NAME': function, 'AWS_LAMBDA_FUNCTION_VERSION': '$LATEST',
           'AWS_LAMBDA_FUNCTION_MEMORY_SIZE': '1024', 'AWS_REGION': 'us-east-1', 'AWS_DEFAULT_REGION': 'us-east-1',
           'AWS_ACCESS_KEY_ID': 'local', 'AWS_SECRET_ACCESS_KEY': 'local', 'AWS_SESSION_TOKEN': 'local', 'TZ': ':UTC',
           'QUARKUS_FUNQY_EXPORT': function, 'QUARKUS_DYNAMODB_ENDPOINT_OVERRIDE': f'http://127.0.0.1:{store_port}',
           'ONCEPAY_TABLE': 'oncepay-cold', 'ONCEPAY_PROVIDER_API_KEY': 'local-sim-key',
           'ONCEPAY_WEBHOOK_SECRETS_SIM_DEFAULT': 'local-sim-secret', 'QUARKUS_LOG_CONSOLE_JSON_ENABLED': 'false'}
    cmd = ['java', '-Xmx256m', '-XX:+UseSerialGC', '-XX:+TieredCompilation', '-XX:TieredStopAtLevel=1', '-Xshare:auto',
           '-XX:-UsePerfData', '-Djava.net.preferIPv4Stack=true', '--add-opens=java.base/java.io=ALL-UNNAMED',
           f'-Dcom.amazonaws.services.lambda.runtime.api.client.runtimeapi.NativeClient.JNI={jni}',
           '-cp', RIC_CP, 'com.amazonaws.services.lambda.runtime.api.client.AWSLambda', HANDLER]
    t0 = time.monotonic()
    log = open(f'{WORK}/{function}.log', 'w')
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    api.pid = proc.pid
    ok = api.done.wait(180)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    api.server.shutdown()
    if not ok or api.next_at is None:
        return None
    return {'init': (api.next_at - t0) * 1000, 'first': (api.answer_at - api.next_at) * 1000,
            'total': (api.answer_at - t0) * 1000, 'cpu_init': api.cpu_next, 'cpu_total': api.cpu_answer,
            'answer': api.answer}


def main():
    rounds = int(sys.argv[1])
    variants = [a.split('=', 1) for a in sys.argv[2:]]
    os.makedirs(WORK, exist_ok=True)
    jni = f'{WORK}/libaws-lambda-jni.linux-x86_64.so'
    with zipfile.ZipFile(RIC_CP.split(':')[0]) as z, open(jni, 'wb') as out:
        out.write(z.read('jni/libaws-lambda-jni.linux-x86_64.so'))
    roots = {name: task_root(name, z) for name, z in variants}
    store, store_port = dynalite()
    ev = events()
    results = {name: {f: [] for f in ev} for name, _ in variants}
    try:
        for r in range(rounds):
            order = variants[r % len(variants):] + variants[:r % len(variants)]
            for name, _ in order:
                for function, (event, expect) in ev.items():
                    m = start(roots[name], function, event, store_port, jni)
                    if m is None or expect not in m['answer'][1]:
                        print(f'round {r + 1} {name} {function}: FAILED {m and m["answer"]}', flush=True)
                        continue
                    results[name][function].append(m)
                    print(f"round {r + 1} {name:9} {function:9} init {m['init']:6.0f} + first {m['first']:6.0f} = {m['total']:6.0f} ms"
                          f"; cpu {m['cpu_init']:6.0f} / {m['cpu_total']:6.0f} ms; load {os.getloadavg()[0]:.1f}", flush=True)
    finally:
        store.terminate()
    print('\nmedians (n): total wall ms (init + first) | cpu ms to init / to answer')
    for name, _ in variants:
        for function in ev:
            ms = results[name][function]
            if not ms:
                continue
            med = lambda k: statistics.median(m[k] for m in ms)
            print(f"{name:9} {function:9} n={len(ms)}: {med('total'):6.0f} ({med('init'):6.0f} + {med('first'):6.0f}) | {med('cpu_init'):6.0f} / {med('cpu_total'):6.0f}")
    json.dump(results, open(f'{WORK}/results.json', 'w'), indent=1)


main()
