/*
 * printk.c - the kernel log.
 *
 * printk() formats one message, puts "[seconds.micros] " in front (time
 * since boot, as Linux's dmesg), appends it to a ring buffer that `dmesg`
 * prints, and writes it to the console if its level is at or below the
 * console log level (`loglevel=N` on the command line, default 6 = info,
 * so pr_debug is hidden unless loglevel=7).
 *
 * Several CPUs print (an AP's work item, a bad-page report or MM_WARN_ON
 * there), so the ring and the console write are one section under
 * log_lock, taken with interrupts off (spin_lock_irqsave()): a line goes
 * into the ring whole and reaches the console whole, never mixed with
 * another CPU's.  The line is formatted before the lock, on the stack, so
 * the section is a copy and a console write.
 *
 * The lock must never be the reason a dying CPU hangs, so printk() writes
 * without it (best effort: lines may mix) when
 *   - this CPU holds it already: an exception or an NMI inside the
 *     section, or a panic reached from it; spinning would never end, and
 *     spin_lock() would panic on the recursion;
 *   - a panic or a fatal exception is in progress (panic() sets
 *     log_panicking, smp_stop_others() sets smp_stopping()): the holder
 *     may be a CPU just halted by the stop NMI, which never releases it.
 * The check is made with interrupts already off, so nothing on this CPU
 * changes the answer before the lock is taken.
 *
 * The lock-order validator (lib/lock.c) sees log_lock as an ordinary
 * lock of class "printk log_lock".  It is a leaf: nothing is taken while
 * it is held (the consoles' write functions take no lock, and the
 * lockless path takes none at all), so every order it records is
 * "X -> printk log_lock" for some lock X the printing CPU held, and the
 * opposite order, which is what an inversion report needs, never occurs.
 * Keep it so: a console that locks would make console lock -> log_lock
 * and log_lock -> console lock both possible.
 *
 * kprintf() and the console printer (the shell's output, the panic and
 * exception reports) write to the console without the lock: they run on
 * CPU 0's main loop or on a dying CPU.
 *
 * panic() is the one way memlab stops on a broken invariant: it prints the
 * message and a backtrace of the caller, then exits QEMU with
 * EXIT_CODE_PANIC through isa-debug-exit (status 225) or halts.
 *
 * Context: any.
 */
#include <lib/printk.h>
#include <kernel/console.h>
#include <kernel/time.h>
#include <lib/string.h>
#include <arch/traps.h>
#include <arch/cpu.h>
#include <arch/smp.h>
#include <lib/lock.h>

#define LOG_BUF_SIZE	(64 * 1024)

static char log_buf[LOG_BUF_SIZE];	/* ring of the most recent messages */
static u64 log_head;			/* total bytes ever appended */
static int console_loglevel = LOG_INFO;
static struct spinlock log_lock = SPINLOCK_INIT("printk log_lock"); /* log_buf, log_head, console */
static volatile bool log_panicking;	/* panic() began: print without log_lock */

static void console_printer_write(struct printer *p, const char *s, size_t len)
{
	(void)p;
	console_write(s, len);
}

struct printer console_printer = { console_printer_write };

void printk_set_level(int level)
{
	console_loglevel = level;
}

int printk_get_level(void)
{
	return console_loglevel;
}

/* Copy s into the ring (log_lock held, or the lockless path). */
static void log_append(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		log_buf[(log_head + i) % LOG_BUF_SIZE] = s[i];
	log_head += len;
}

/*
 * log_write() - append the formatted line to the ring and, at a shown
 * level, to the console: under log_lock, or without it when this CPU
 * holds it already or a panic is in progress (the header says why).
 * Context: any.
 */
static void log_write(int level, const char *line, size_t len)
{
	unsigned long flags = lock_irq_save();
	bool locked = false;

	if (!log_panicking && !smp_stopping() && !spin_held_here(&log_lock)) {
		spin_lock(&log_lock);
		locked = true;
	}
	log_append(line, len);
	if (level <= console_loglevel)
		console_write(line, len);
	if (locked)
		spin_unlock(&log_lock);
	lock_irq_restore(flags);
}

void vprintk(int level, const char *fmt, va_list ap)
{
	char line[512];
	u64 ns = ktime_ns();
	int n = ksnprintf(line, sizeof(line), "[%5llu.%06llu] ",
			  (unsigned long long)(ns / NSEC_PER_SEC),
			  (unsigned long long)(ns % NSEC_PER_SEC / 1000));
	int m = kvsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	size_t len = (size_t)n + ((size_t)m < sizeof(line) - n - 1 ? (size_t)m : sizeof(line) - n - 2);

	if (len == 0 || line[len - 1] != '\n')
		line[len++] = '\n';
	log_write(level, line, len);
}

void printk(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk(level, fmt, ap);
	va_end(ap);
}

void kprintf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pr_vprintf(&console_printer, fmt, ap);
	va_end(ap);
}

void panic(const char *fmt, ...)
{
	va_list ap;
	u64 rbp;

	irq_disable();
	log_panicking = true;
	kprintf("\nKernel panic - not syncing: ");
	va_start(ap, fmt);
	pr_vprintf(&console_printer, fmt, ap);
	va_end(ap);
	kprintf("\n");
	__asm__ volatile("mov %%rbp, %0" : "=r"(rbp));
	backtrace_print(&console_printer, 0, rbp);
	smp_stop_others(&console_printer);	/* the other CPUs halt, with where they were */
	kprintf("---[ end Kernel panic; QEMU exit status %u with isa-debug-exit ]---\n",
		(EXIT_CODE_PANIC << 1) | 1);
	console_flush();		/* a screen draws what it deferred */
	qemu_debug_exit(EXIT_CODE_PANIC);
	cpu_halt_forever();
}

/*
 * printk_log_dump() - see lib/printk.h.  The ring is copied out a chunk
 * at a time under log_lock and written to p without it (p may be the
 * console; a CPU that prints meanwhile waits for one chunk, not the whole
 * dump).  Where other CPUs' lines overwrote the part not yet copied, the
 * dump goes on at the next whole line still in the ring.
 */
void printk_log_dump(struct printer *p)
{
	char chunk[256];
	u64 pos = 0;
	bool first = true;

	for (;;) {
		unsigned long flags = spin_lock_irqsave(&log_lock);
		u64 oldest = log_head > LOG_BUF_SIZE ? log_head - LOG_BUF_SIZE : 0;
		size_t n = 0;

		if (first || pos < oldest) {	/* start at a whole line */
			pos = oldest;
			if (oldest) {
				while (pos < log_head && log_buf[pos % LOG_BUF_SIZE] != '\n')
					pos++;
				pos++;
			}
			first = false;
		}
		while (pos < log_head && n < sizeof(chunk))
			chunk[n++] = log_buf[pos++ % LOG_BUF_SIZE];
		spin_unlock_irqrestore(&log_lock, flags);
		if (!n)
			return;
		p->write(p, chunk, n);
	}
}

/*
 * printk_log_read() - see lib/printk.h.  Copies under log_lock, like the
 * dump; a position the ring has overwritten moves to the oldest byte
 * still in it, and the bytes skipped are counted in *lost.
 */
size_t printk_log_read(u64 *pos, char *buf, size_t size, u64 *lost)
{
	unsigned long flags = spin_lock_irqsave(&log_lock);
	u64 oldest = log_head > LOG_BUF_SIZE ? log_head - LOG_BUF_SIZE : 0;
	size_t n = 0;

	if (*pos < oldest) {
		*lost += oldest - *pos;
		*pos = oldest;
	}
	while (*pos < log_head && n < size)
		buf[n++] = log_buf[(*pos)++ % LOG_BUF_SIZE];
	spin_unlock_irqrestore(&log_lock, flags);
	return n;
}

u64 printk_log_head(void)
{
	unsigned long flags = spin_lock_irqsave(&log_lock);
	u64 head = log_head;

	spin_unlock_irqrestore(&log_lock, flags);
	return head;
}
