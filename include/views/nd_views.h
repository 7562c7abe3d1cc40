/*
 * nd_views.h - the NVDIMM bus in sysfs (views/sysfs_nd.c), as Linux's
 * libnvdimm and its NFIT driver show it under /sys/bus/nd/devices/:
 *   nmemN/{devtype,available_slots,commands}
 *   nmemN/nfit/{handle,phys_id,vendor,device,rev_id,subsystem_vendor,
 *       subsystem_device,subsystem_rev_id,serial,format,id,flags}
 *   regionN/{size,align,numa_node,mappings,available_size,nstype,
 *       label_state,devtype,mapping0..}   mappingK: "nmemX,dpa,size,position"
 *   namespaceN.M/{mode,size,uuid,holder,numa_node,nstype,devtype}
 *   daxN.M/{align,mode,namespace,size,numa_node,devtype}   the namespace's
 *       dax device: a seed (size 0, no namespace) until the namespace is
 *       devdax, as Linux's idle dax seed
 * namespaceN.M and daxN.M exist while the namespace does.
 * Context: (main).
 */
#ifndef VIEWS_ND_VIEWS_H
#define VIEWS_ND_VIEWS_H

/*
 * nd_views_init() - the files of every DIMM and region drivers/nvdimm/nd.c
 * has, and of their namespaces, kept in step with them from then on.
 * Call once after vfs_init() and the regions.  A file that cannot be
 * created is logged and skipped.
 */
void nd_views_init(void);

#endif
