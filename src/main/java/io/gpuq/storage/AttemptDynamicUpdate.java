package io.gpuq.storage;

import io.gpuq.job.JobAttempt;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.integrator.spi.Integrator;
import org.hibernate.mapping.PersistentClass;

/**
 * Writes only the changed columns of a job's attempt, as {@code @DynamicUpdate} did: the worker's
 * PID is recorded by a statement of its own, which may land while another transaction records the
 * attempt's end. Hibernate reads {@code <dynamic-update>} from no XML mapping ({@code
 * META-INF/orm.xml} maps the plain-Java {@link JobAttempt}), so this sets it on the mapping before
 * the entity's persister is built. Registered in {@code META-INF/services}.
 */
public final class AttemptDynamicUpdate implements Integrator {

  @Override
  public void integrate(
      Metadata metadata,
      BootstrapContext bootstrapContext,
      SessionFactoryImplementor sessionFactory) {
    PersistentClass attempt = metadata.getEntityBinding(JobAttempt.class.getName());
    if (attempt != null) {
      attempt.setDynamicUpdate(true);
    }
  }
}
