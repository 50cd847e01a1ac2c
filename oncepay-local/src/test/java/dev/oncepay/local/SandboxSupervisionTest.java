package dev.oncepay.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lambda's supervision of sandboxes, with AWS's real runtime interface client (JNI client
 * included) in real processes, against the local Runtime API: results and errors come back,
 * a sandbox that dies fails its invocation with {@code Runtime.ExitError} and is replaced, one
 * that outlives the timeout fails it with {@code Sandbox.Timedout} and is replaced, and both
 * sandboxes of a function run invocations at the same time.
 */
@Timeout(120)
@Tag("slow")
class SandboxSupervisionTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static ScheduledExecutorService timers;
    private static LambdaFunction function;

    @BeforeAll
    static void start() throws Exception {
        timers = Executors.newScheduledThreadPool(2);
        SandboxCommand command = command("supervision");
        function = new LambdaFunction("scripted", Duration.ofSeconds(3), 128, timers);
        function.add(new Sandbox(function, 1, command, Map.of()));
        function.add(new Sandbox(function, 2, command, Map.of()));
        function.sandboxes().forEach(Sandbox::start);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!function.sandboxes().stream().allMatch(Sandbox::ready) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(function.sandboxes().stream().allMatch(Sandbox::ready), "both sandboxes initialise");
    }

    /** The task root is the test classes directory: the client's customer class loader finds the handler there. */
    static SandboxCommand command(String workDir) throws java.io.IOException {
        Path module = Path.of("").toAbsolutePath();
        return new SandboxCommand(module.resolve("target/test-classes"), module.resolve("target/local-run-test/" + workDir),
                "64m", ScriptedHandler.class.getName() + "::handleRequest");
    }

    @AfterAll
    static void stop() {
        List<ProcessHandle> processes = function.sandboxes().stream().map(Sandbox::process).filter(p -> p != null).toList();
        function.close();
        timers.shutdownNow();
        processes.forEach(p -> assertTrue(p.onExit().isDone() || !p.isAlive(), "sandbox " + p.pid() + " stopped"));
    }

    @Test
    void returnsTheFunctionsOutputWithLambdasContext() throws Exception {
        JsonNode answer = success(invoke("echo"));
        assertEquals("scripted", answer.get("function").asText());
        long remaining = answer.get("remainingMs").asLong();
        assertTrue(remaining > 0 && remaining <= 3000, "deadline header honoured: " + remaining);
        assertTrue(function.sandboxes().stream().anyMatch(s -> s.process() != null
                && s.process().pid() == answer.get("pid").asLong()), "ran in one of the sandboxes");
    }

    @Test
    void aThrownExceptionIsAFunctionErrorAndTheSandboxStays() throws Exception {
        InvocationResult.Failure failure = assertInstanceOf(InvocationResult.Failure.class, invoke("fail"));
        assertEquals("java.lang.IllegalStateException", failure.errorType());
        assertEquals("failing as asked", failure.errorMessage());
        success(invoke("echo"));
    }

    @Test
    void aSandboxThatDiesFailsItsInvocationAndIsReplaced() throws Exception {
        List<Long> before = pids();
        InvocationResult.Failure failure = assertInstanceOf(InvocationResult.Failure.class, invoke("exit"));
        assertEquals("Runtime.ExitError", failure.errorType());
        assertTrue(failure.errorMessage().contains("exit status 3"), failure.errorMessage());
        awaitBothReady();
        assertNotEquals(before, pids(), "a new process replaced the dead one");
        success(invoke("echo"));
    }

    @Test
    void anInvocationOverTheTimeoutFailsAndItsSandboxIsReplaced() throws Exception {
        List<Long> before = pids();
        long started = System.nanoTime();
        InvocationResult.Failure failure = assertInstanceOf(InvocationResult.Failure.class, invoke("sleep"));
        long ms = (System.nanoTime() - started) / 1_000_000;
        assertEquals("Sandbox.Timedout", failure.errorType());
        assertTrue(failure.errorMessage().endsWith("Task timed out after 3.00 seconds"), failure.errorMessage());
        assertTrue(ms >= 2900 && ms < 15_000, "ended at the timeout, took " + ms + " ms");
        awaitBothReady();
        assertNotEquals(before, pids(), "the timed-out sandbox was replaced");
        success(invoke("echo"));
    }

    @Test
    void twoSandboxesRunTwoInvocationsAtOnce() throws Exception {
        awaitBothReady();
        var first = function.invoke("echo".getBytes(StandardCharsets.UTF_8), "Root=1-test");
        var second = function.invoke("echo".getBytes(StandardCharsets.UTF_8), "Root=1-test");
        var third = function.invoke("echo".getBytes(StandardCharsets.UTF_8), "Root=1-test");
        JsonNode a = success(first.get(30, TimeUnit.SECONDS));
        JsonNode b = success(second.get(30, TimeUnit.SECONDS));
        success(third.get(30, TimeUnit.SECONDS));
        assertNotEquals(a.get("requestId").asText(), b.get("requestId").asText());
    }

    @Test
    void anInvocationSentRightAfterAKillIsAnsweredByTheReplacementNotFailed() throws Exception {
        // One sandbox, so the killed process's own long-poll of /next is the only one waiting.
        LambdaFunction single = new LambdaFunction("scripted-single", Duration.ofSeconds(3), 128, timers);
        single.add(new Sandbox(single, 1, command("single"), Map.of()));
        try {
            single.sandboxes().forEach(Sandbox::start);
            Sandbox sandbox = single.sandboxes().get(0);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!sandbox.idle() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(sandbox.idle(), "the sandbox initialises");
            ProcessHandle killed = sandbox.process();

            killed.destroyForcibly(); // SIGKILL; the request follows before the exit is noticed
            var answer = single.invoke("echo".getBytes(StandardCharsets.UTF_8), "Root=1-test");

            JsonNode echo = success(answer.get(60, TimeUnit.SECONDS));
            assertNotEquals(killed.pid(), echo.get("pid").asLong(), "the replacement ran it");
        } finally {
            single.close();
        }
    }

    @Test
    void aKilledProcessCountsAsExitingFromTheKillUntilItIsReaped() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self")), "a Linux /proc");
        // Reading /proc while a process is reaped fails with ENOENT or, mid-read, ESRCH; over a few
        // hundred kills the reads land in that window many times.
        for (int i = 0; i < 300; i++) {
            Process process = new ProcessBuilder("sleep", "60").start();
            assertFalse(Sandbox.exiting(process), "a live process is not exiting");
            process.destroyForcibly();
            while (process.isAlive()) {
                assertTrue(Sandbox.exiting(process), "killed process " + process.pid() + " counted as exiting");
            }
        }
    }

    private static InvocationResult invoke(String event) throws Exception {
        return function.invoke(event.getBytes(StandardCharsets.UTF_8), "Root=1-test").get(30, TimeUnit.SECONDS);
    }

    private static JsonNode success(InvocationResult result) throws Exception {
        InvocationResult.Success s = assertInstanceOf(InvocationResult.Success.class, result, result.describe());
        return JSON.readTree(s.payload());
    }

    private static List<Long> pids() {
        return function.sandboxes().stream().map(Sandbox::process).map(p -> p == null ? -1L : p.pid()).toList();
    }

    private static void awaitBothReady() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!function.allSandboxesReady() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(function.allSandboxesReady(), "replacement sandboxes initialise");
    }
}
