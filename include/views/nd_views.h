/*
 * nd_views.h - the NVDIMM bus in sysfs (views/sysfs_nd.c), as Linux's
 * libnvdimm shows it under /sys/bus/nd/devices/:
 *   regionN/{size,align,numa_node,mappings,available_size,nstype}
 *   namespaceN.0/{mode,size,holder,numa_node,nstype}
 *   daxN.0/{align,mode,namespace,size,numa_node}   the region's dax device:
 *       a seed (size 0, no namespace) until create-namespace --mode=devdax
 *       claims namespaceN.0, as Linux's idle dax seed
 * Context: (main).
 */
#ifndef VIEWS_ND_VIEWS_H
#define VIEWS_ND_VIEWS_H

/*
 * nd_views_init() - the files of every region drivers/nvdimm/nd.c has.
 * Call once after vfs_init() and the regions.  A file that cannot be
 * created is logged and skipped.
 */
void nd_views_init(void);

#endif
