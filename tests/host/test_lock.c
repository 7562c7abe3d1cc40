/*
 * test_lock.c - lib/lock.h's locks on one CPU, mm's lock contracts, and
 * the MM_WARN_ON tier.
 *
 * A lock found held is a bug on one CPU, and the locks panic then; a panic
 * on the host aborts, so each "this must panic" case runs in a child
 * process (expect_panic()), whose stderr the parent reads and whose death
 * by SIGABRT it checks.
 */
#include <stdlib.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
#include <pthread.h>
#include "htest.h"
#include "buddy_fixture.h"
#include "platform_stub.h"
#include <lib/lock.h>
#include <mm/platform.h>
#include <mm/memory_hotplug.h>

/*
 * Run fn in a child; true if it died of abort() (the host's panic) and
 * its stderr contains every string of want (NULL-terminated).
 */
static bool expect_panic(void (*fn)(void), const char *const *want)
{
	char buf[4096];
	size_t len = 0;
	int fds[2], status;
	pid_t pid;
	ssize_t n;

	fflush(stdout);
	fflush(stderr);
	if (pipe(fds))
		return false;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 2);
		close(fds[0]);
		fn();
		_exit(0);	/* no panic: the parent sees exit status 0 */
	}
	close(fds[1]);
	while (len < sizeof(buf) - 1 && (n = read(fds[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = 0;
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT) {
		fprintf(stderr, "  child did not panic (status %#x); its stderr:\n%s", status, buf);
		return false;
	}
	for (; *want; want++)
		if (!strstr(buf, *want)) {
			fprintf(stderr, "  panic text lacks \"%s\":\n%s", *want, buf);
			return false;
		}
	return true;
}

static struct spinlock test_spin = SPINLOCK_INIT("test spinlock");
static struct mutex test_mutex = MUTEX_INIT("test mutex");
static struct rwsem test_rwsem = RWSEM_INIT("test rwsem");

HTEST(lock_counts_and_records_what_is_held)
{
	u64 taken = test_spin.nr_taken;

	CHECK_EQ(lock_nr_held(), 0);
	spin_lock(&test_spin);
	mutex_lock(&test_mutex);
	down_read(&test_rwsem);
	down_read(&test_rwsem);		/* readers nest */
	CHECK_EQ(lock_nr_held(), 4);
	CHECK(spin_is_locked(&test_spin) && mutex_is_locked(&test_mutex));
	CHECK_EQ(test_rwsem.readers, 2);
	spin_unlock(&test_spin);	/* out of order: allowed */
	up_read(&test_rwsem);
	up_read(&test_rwsem);
	mutex_unlock(&test_mutex);
	CHECK_EQ(lock_nr_held(), 0);
	CHECK_EQ(test_spin.nr_taken, taken + 1);
	down_write(&test_rwsem);
	CHECK(rwsem_is_write_locked(&test_rwsem));
	up_write(&test_rwsem);
	CHECK(!rwsem_is_locked(&test_rwsem));
	lock_assert_none_held("test");	/* none held: returns */
}

static void spin_twice(void)
{
	spin_lock(&test_spin);
	spin_lock(&test_spin);
}

static void mutex_unheld(void)
{
	mutex_unlock(&test_mutex);
}

static void write_over_read(void)
{
	down_read(&test_rwsem);
	down_write(&test_rwsem);
}

static void read_over_write(void)
{
	down_write(&test_rwsem);
	down_read(&test_rwsem);
}

static void yield_holding(void)
{
	mutex_lock(&test_mutex);
	lock_assert_none_held("kthread_yield");
}

static void assert_unheld(void)
{
	spin_assert_held(&test_spin);
}

HTEST(lock_misuse_panics_with_the_lock_and_the_site)
{
	CHECK(expect_panic(spin_twice, (const char *const[]){
		"spin_lock(test spinlock)", "already held, taken at", NULL }));
	CHECK(expect_panic(mutex_unheld, (const char *const[]){
		"mutex_unlock(test mutex)", "not held", NULL }));
	CHECK(expect_panic(write_over_read, (const char *const[]){
		"down_write(test rwsem)", "1 readers", NULL }));
	CHECK(expect_panic(read_over_write, (const char *const[]){
		"down_read(test rwsem)", "held for writing", NULL }));
	CHECK(expect_panic(yield_holding, (const char *const[]){
		"kthread_yield: 1 lock(s) held", "test mutex (mutex) taken at", NULL }));
	CHECK(expect_panic(assert_unheld, (const char *const[]){
		"assert_unheld(): test spinlock is not held", NULL }));
}

/* ---- several CPUs: the owner, and the validator --------------------------- */

static struct spinlock order_a = SPINLOCK_INIT("test order a");
static struct spinlock order_b = SPINLOCK_INIT("test order b");
static struct spinlock held_elsewhere = SPINLOCK_INIT("test held by cpu 1");

/* CPU 1 takes held_elsewhere and keeps it (its own record says so). */
static void *take_on_cpu1(void *arg)
{
	host_cpu = 1;
	spin_lock(&held_elsewhere);
	CHECK_EQ(lock_nr_held(), 1);
	return arg;
}

static void unlock_other_cpus_lock(void)
{
	pthread_t t;

	pthread_create(&t, NULL, take_on_cpu1, NULL);
	pthread_join(t, NULL);
	spin_unlock(&held_elsewhere);	/* CPU 0 does not hold it */
}

HTEST(lock_knows_which_cpu_holds_it)
{
	unsigned long flags;

	flags = spin_lock_irqsave(&test_spin);
	CHECK(spin_held_here(&test_spin) && lock_held_here(&test_spin));
	host_cpu = 1;			/* as seen from another CPU */
	CHECK(spin_is_locked(&test_spin) && !spin_held_here(&test_spin));
	CHECK(!lock_held_here(&test_spin) && lock_nr_held() == 0);
	host_cpu = 0;
	spin_unlock_irqrestore(&test_spin, flags);
	CHECK(!lock_held_here(&test_spin));
	CHECK(expect_panic(unlock_other_cpus_lock, (const char *const[]){
		"spin_unlock(test held by cpu 1)", "not held by this CPU", NULL }));
}

/* a then b, released; then b then a: the second order is the inversion. */
static void take_in_both_orders(void)
{
	spin_lock(&order_a);
	spin_lock(&order_b);
	spin_unlock(&order_b);
	spin_unlock(&order_a);
	spin_lock(&order_b);
	spin_lock(&order_a);
}

/* The same with a mutex outside an rwsem, then the rwsem outside it. */
static void mutex_rwsem_both_orders(void)
{
	mutex_lock(&test_mutex);
	down_read(&test_rwsem);
	up_read(&test_rwsem);
	mutex_unlock(&test_mutex);
	down_write(&test_rwsem);
	mutex_lock(&test_mutex);
}

HTEST(lock_validator_reports_an_inversion_with_both_sites)
{
	struct lock_validator_stats st;

	CHECK(expect_panic(take_in_both_orders, (const char *const[]){
		"lock order inversion: spin_lock(test order a) at 0x",
		"with test order b already held (taken at 0x",
		"the order test order a -> test order b was seen first: "
		"spin_lock(test order b) at 0x", "with test order a held (taken at 0x", NULL }));
	CHECK(expect_panic(mutex_rwsem_both_orders, (const char *const[]){
		"lock order inversion: mutex_lock(test mutex)",
		"the order test mutex -> test rwsem was seen first: down_read(test rwsem)", NULL }));
	/* One order alone, as often as you like, is fine; so is one class
	 * twice (two zone->locks would be). */
	for (int i = 0; i < 3; i++) {
		spin_lock(&order_a);
		spin_lock(&order_b);
		spin_unlock(&order_b);
		spin_unlock(&order_a);
	}
	lock_validator_stats(&st);
	CHECK(st.nr_classes >= 2 && st.nr_classes <= LOCK_MAX_CLASSES);
	CHECK(st.nr_pairs >= 1 && st.nr_pairs <= LOCK_MAX_PAIRS);
	CHECK_EQ(st.classes_dropped, 0);
}

/* mm's contracts: a buddy change without zone->lock, a block state change
 * without the block's lock, a span change without mem_hotplug_lock. */
static struct zone lock_zone;

static void buddy_without_zone_lock(void)
{
	struct page *page = bf_rmqueue_smallest(&lock_zone, 0, MIGRATE_MOVABLE);

	buddy_free_one(&lock_zone, page_to_pfn(page), 0, MIGRATE_MOVABLE, FPI_NONE);
}

/* The boot pageset (high 0) sends every free straight on to the buddy:
 * zone->lock inside the pcp lock, which the caller must not hold. */
static void pcp_under_zone_lock(void)
{
	struct page *page = zone_alloc_pages(&lock_zone, GFP_KERNEL, 0);

	spin_lock(&lock_zone.lock);
	zone_free_pages(&lock_zone, page, 0);
}

static void state_without_block_lock(void)
{
	struct memory_block *mem;

	if (memory_block_create(4000, 0, NULL, false, &mem))
		return;		/* no panic: the parent's check fails */
	memory_block_set_state(mem, MEM_ONLINE);
}

static void hotplug_lock_twice(void)
{
	mem_hotplug_begin();
	get_online_mems();
}

HTEST(mm_contracts_assert_their_locks)
{
	bf_machine(64ULL << 20);
	bf_zone_init(&lock_zone, 0, ZONE_NORMAL, 0, 4096, MIGRATE_MOVABLE);
	bf_handover(&lock_zone, 0, 4096);
	CHECK(expect_panic(buddy_without_zone_lock, (const char *const[]){
		"buddy_free_one(): zone->lock is not held", NULL }));
	CHECK(expect_panic(pcp_under_zone_lock, (const char *const[]){
		"spin_lock(zone->lock)", "already held", NULL }));
	CHECK(expect_panic(state_without_block_lock, (const char *const[]){
		"memory_block_set_state(): memory block lock is not held", NULL }));
	CHECK(expect_panic(hotplug_lock_twice, (const char *const[]){
		"down_read(mem_hotplug_lock)", "held for writing", NULL }));
	CHECK_EQ(lock_nr_held(), 0);
}

HTEST(mm_warn_logs_counts_and_answers)
{
	u64 before = mm_nr_warnings();
	int since = host_log_count;

	htest_expect_warnings(1);
	CHECK(!MM_WARN_ON(1 + 1 == 3, "never"));
	CHECK(MM_WARN_ON(2 > 1, "pfn %#x", 0x42));
	CHECK_EQ(mm_nr_warnings(), before + 1);
	CHECK(host_log_seen("WARNING: tests/host/test_lock.c:", since));
	CHECK(host_log_seen("mm_warn_logs_counts_and_answers(): 2 > 1 pfn 0x42", since));
}
