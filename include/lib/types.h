/*
 * types.h - the fixed-width types every memlab file uses.
 *
 * Only the compiler's freestanding headers are included, so this header
 * builds in the kernel (-ffreestanding) and in the host tests alike.
 */
#ifndef LIB_TYPES_H
#define LIB_TYPES_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdarg.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

typedef u64 phys_addr_t;	/* a physical address */

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a)	(((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a) - 1)) == 0)
#define MIN(a, b)	((a) < (b) ? (a) : (b))
#define MAX(a, b)	((a) > (b) ? (a) : (b))

#define SZ_4K		0x1000ULL
#define SZ_1M		0x100000ULL
#define SZ_2M		0x200000ULL
#define SZ_16M		0x1000000ULL
#define SZ_128M		0x8000000ULL
#define SZ_1G		0x40000000ULL
#define SZ_4G		0x100000000ULL

#define __packed	__attribute__((packed))
#define __noreturn	__attribute__((noreturn))
#define __used		__attribute__((used))
#define __section(s)	__attribute__((section(s)))
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define __aligned(n)	__attribute__((aligned(n)))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#endif
