/* tracee: a program to run under libbeacon_trace.so that does I/O in the
 * ways that are hard for a tracer (tests/integration/tracer_programs.sh):
 * threads, a forked child that leaves with _exit, an exec of itself, a
 * signal handler that writes while the interrupted thread is writing,
 * stdio, lseek+read, strided pwrite, dup, a vfork child leaving with
 * _exit, relative paths after chdir and fchdir, appends, a device. It
 * prints on stdout, one JSON
 * object per file, what it did: {"file": NAME, "op": OP, "ops": N,
 * "bytes": B} (and "end": the end of the last byte written, when it
 * matters), and {"handler_writes": N} for the signal handler, whose
 * writes may be passed through untraced when they interrupt the tracer.
 *
 * usage: tracee DIR            (the exec'ed child: tracee DIR --child) */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define THREADS 4
#define THREAD_OPS 1000
#define THREAD_SIZE 512
#define THREAD_STRIDE 1024
#define SEQ_OPS 100
#define SEQ_SIZE 4096
#define CHILD_OPS 50
#define CHILD_SIZE 8192
#define EXEC_OPS 10
#define EXEC_SIZE 100
#define SIG_OPS 20000
#define SIG_SIZE 64
#define STDIO_ITEMS 1000
#define STDIO_SIZE 10
#define STDIO_READ 100
#define CWD_OPS 30
#define CWD_SIZE 300

static const char *dir;
static int handler_fd = -1;
static volatile sig_atomic_t handler_writes;

static void die(const char *what)
{
	fprintf(stderr, "tracee: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int open_in(const char *name, int flags)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, flags, 0644);
	if (fd < 0)
		die(path);
	return fd;
}

static void report(const char *name, const char *op, long ops, long bytes)
{
	printf("{\"file\":\"%s\",\"op\":\"%s\",\"ops\":%ld,\"bytes\":%ld}\n",
	       name, op, ops, bytes);
}

static void *thread_main(void *arg)
{
	char name[32], buf[THREAD_SIZE];
	long i = (long)arg;
	int fd;

	memset(buf, 't', sizeof(buf));
	snprintf(name, sizeof(name), "thread%ld", i);
	fd = open_in(name, O_CREAT | O_TRUNC | O_WRONLY);
	for (int k = 0; k < THREAD_OPS; k++)
		if (pwrite(fd, buf, THREAD_SIZE, (off_t)k * THREAD_STRIDE) !=
		    THREAD_SIZE)
			die("pwrite");
	close(fd);
	return NULL;
}

static void on_alarm(int sig)
{
	static const char msg[SIG_SIZE / 8] = "handler";
	int e = errno;

	(void)sig;
	if (write(handler_fd, msg, sizeof(msg)) == (ssize_t)sizeof(msg))
		handler_writes++;
	errno = e;
}

static void signals(void)
{
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	struct sigaction sa = { .sa_handler = on_alarm };
	char buf[SIG_SIZE];
	int fd;

	memset(buf, 's', sizeof(buf));
	handler_fd = open_in("handler", O_CREAT | O_TRUNC | O_WRONLY);
	fd = open_in("signalled", O_CREAT | O_TRUNC | O_WRONLY);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (int k = 0; k < SIG_OPS; k++)
		if (write(fd, buf, SIG_SIZE) != SIG_SIZE)
			die("write");
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	close(fd);
	close(handler_fd);
	report("signalled", "write", SIG_OPS, (long)SIG_OPS * SIG_SIZE);
}

static void stdio_part(void)
{
	char path[4096], buf[STDIO_READ];
	long got = 0, reads = 0;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stdio", dir);
	f = fopen(path, "w");
	if (!f)
		die(path);
	for (int k = 0; k < STDIO_ITEMS; k++)
		fwrite("0123456789", 1, STDIO_SIZE, f);
	fclose(f);
	f = fopen(path, "r");
	if (!f)
		die(path);
	do {
		n = fread(buf, 1, sizeof(buf), f);
		got += (long)n;
		reads++;
	} while (n == sizeof(buf));
	fclose(f);
	report("stdio", "write", STDIO_ITEMS, STDIO_ITEMS * STDIO_SIZE);
	report("stdio", "read", reads, got);
}

static void seq_part(void)
{
	char buf[SEQ_SIZE];
	int fd, fd2;

	memset(buf, 'q', sizeof(buf));
	fd = open_in("seq", O_CREAT | O_TRUNC | O_RDWR);
	for (int k = 0; k < SEQ_OPS; k++)
		if (write(fd, buf, SEQ_SIZE) != SEQ_SIZE)
			die("write");
	fsync(fd);
	/* read it back through a duplicate, with lseek before each read */
	fd2 = dup(fd);
	for (int k = 0; k < SEQ_OPS; k++) {
		if (lseek(fd2, (off_t)k * SEQ_SIZE, SEEK_SET) < 0 ||
		    read(fd2, buf, SEQ_SIZE) != SEQ_SIZE)
			die("read");
	}
	close(fd2);
	close(fd);
	report("seq", "write", SEQ_OPS, (long)SEQ_OPS * SEQ_SIZE);
	report("seq", "read", SEQ_OPS, (long)SEQ_OPS * SEQ_SIZE);
	report("seq", "seek", SEQ_OPS, 0);
}

static void child_part(void)
{
	char buf[CHILD_SIZE];
	pid_t p = fork();
	int st, fd;

	if (p < 0)
		die("fork");
	if (p == 0) {
		memset(buf, 'c', sizeof(buf));
		fd = open_in("child", O_CREAT | O_TRUNC | O_WRONLY);
		for (int k = 0; k < CHILD_OPS; k++)
			if (write(fd, buf, CHILD_SIZE) != CHILD_SIZE)
				_exit(1);
		/* no close: _exit must still deliver the open run */
		_exit(0);
	}
	if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st))
		die("child");
	report("child", "write", CHILD_OPS, (long)CHILD_OPS * CHILD_SIZE);
}

static void exec_part(const char *self)
{
	pid_t p = fork();
	int st;

	if (p < 0)
		die("fork");
	if (p == 0) {
		char *argv[] = { (char *)self, (char *)dir, "--child", NULL };

		execv(self, argv);
		_exit(127);
	}
	if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st))
		die("exec child");
	report("exec", "write", EXEC_OPS, (long)EXEC_OPS * EXEC_SIZE);
}

/* vfork + _exit in the child must not stop the parent's tracing. */
static void vfork_part(void)
{
	char buf[EXEC_SIZE];
	int fd = open_in("vfork", O_CREAT | O_TRUNC | O_WRONLY), st;
	pid_t p;

	memset(buf, 'v', sizeof(buf));
	for (int k = 0; k < EXEC_OPS; k++)
		if (write(fd, buf, EXEC_SIZE) != EXEC_SIZE)
			die("write");
	p = vfork();
	if (p == 0)
		_exit(0);
	if (p < 0 || waitpid(p, &st, 0) != p)
		die("vfork");
	for (int k = 0; k < EXEC_OPS; k++)
		if (write(fd, buf, EXEC_SIZE) != EXEC_SIZE)
			die("write");
	close(fd);
	report("vfork", "write", 2 * EXEC_OPS, 2L * EXEC_OPS * EXEC_SIZE);
}

static void write_n(int fd, int n, size_t size)
{
	char buf[CWD_SIZE];

	memset(buf, 'c', sizeof(buf));
	for (int k = 0; k < n; k++)
		if (write(fd, buf, size) != (ssize_t)size)
			die("write");
}

/* Relative paths after chdir and fchdir (the tracer keeps the working
 * directory until it changes), a file appended to by a second open (its
 * writes continue at its size), and a device, which is not traced. */
static void cwd_part(void)
{
	char sub[4096];
	int here = open(".", O_RDONLY | O_DIRECTORY), fd, dfd;

	snprintf(sub, sizeof(sub), "%s/sub", dir);
	if (here < 0 || mkdir(sub, 0755) || chdir(dir))
		die("chdir");
	fd = open("sub/./rel", O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0)
		die("sub/rel");
	write_n(fd, CWD_OPS, CWD_SIZE);
	close(fd);
	dfd = open("sub", O_RDONLY | O_DIRECTORY);
	if (dfd < 0 || fchdir(dfd))
		die("fchdir");
	fd = open("rel2", O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0)
		die("rel2");
	write_n(fd, CWD_OPS, CWD_SIZE);
	close(fd);
	close(dfd);
	fd = open("append", O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0)
		die("append");
	write_n(fd, 1, CWD_SIZE);
	close(fd);
	fd = open("./append", O_WRONLY | O_APPEND);
	if (fd < 0)
		die("append");
	write_n(fd, CWD_OPS, CWD_SIZE);
	close(fd);
	fd = open("/dev/null", O_WRONLY);
	if (fd < 0)
		die("/dev/null");
	write_n(fd, CWD_OPS, CWD_SIZE);
	close(fd);
	if (fchdir(here))
		die("fchdir back");
	close(here);
	report("sub/rel", "write", CWD_OPS, (long)CWD_OPS * CWD_SIZE);
	report("sub/rel2", "write", CWD_OPS, (long)CWD_OPS * CWD_SIZE);
	printf("{\"file\":\"sub/append\",\"op\":\"write\",\"ops\":%d,"
	       "\"bytes\":%ld,\"end\":%ld}\n", CWD_OPS + 1,
	       (long)(CWD_OPS + 1) * CWD_SIZE, (long)(CWD_OPS + 1) * CWD_SIZE);
}

static int exec_child(void)
{
	char buf[EXEC_SIZE];
	int fd = open_in("exec", O_CREAT | O_TRUNC | O_WRONLY);

	memset(buf, 'e', sizeof(buf));
	for (int k = 0; k < EXEC_OPS; k++)
		if (write(fd, buf, EXEC_SIZE) != EXEC_SIZE)
			return 1;
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t th[THREADS];

	if (argc < 2) {
		fprintf(stderr, "usage: tracee DIR\n");
		return 2;
	}
	dir = argv[1];
	if (argc > 2 && !strcmp(argv[2], "--child"))
		return exec_child();
	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&th[i], NULL, thread_main, (void *)i))
			die("pthread_create");
	for (int i = 0; i < THREADS; i++) {
		char name[32];

		pthread_join(th[i], NULL);
		snprintf(name, sizeof(name), "thread%d", i);
		report(name, "write", THREAD_OPS, (long)THREAD_OPS * THREAD_SIZE);
	}
	seq_part();
	stdio_part();
	child_part();
	exec_part(argv[0]);
	vfork_part();
	cwd_part();
	signals();
	printf("{\"handler_writes\":%d,\"handler_size\":%d}\n",
	       (int)handler_writes, SIG_SIZE / 8);
	return 0;
}
